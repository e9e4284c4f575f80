// The agent graph's state: LangGraph's MessagesAnnotation, with a messages reducer that returns
// what messagesStateReducer returns without re-walking the history at every step.

import type { BaseMessage } from '@langchain/core/messages';
import { Annotation, type Messages } from '@langchain/langgraph';
import { appendMessagesReducer } from './messages-reducer';

export const AgentState = Annotation.Root({
	messages: Annotation<BaseMessage[], Messages>({ reducer: appendMessagesReducer, default: () => [] })
});
