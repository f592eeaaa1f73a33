import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from support_bot.app import answer
from support_bot.retriever import Retriever


@pytest.fixture(scope="session")
def retriever() -> Retriever:
    return Retriever()


@pytest.fixture(scope="session")
def support_bot(retriever):
    """The system under test: question in, (answer, retrieved passages) out."""

    def ask(question: str):
        passages = retriever.search(question, k=3)
        return answer(question, passages), passages

    return ask


@pytest.fixture(scope="session")
def rag_app(retriever):
    """The app as the case files (*.rag.jsonl) reach it: rag_app(question, history) -> (answer, passages).

    A follow-up question ("How much does it cost?") is retrieved together with the user's earlier
    messages, as a chat app would rewrite it."""

    def ask(question: str, history: list[dict[str, str]]):
        earlier = " ".join(m["content"] for m in history if m["role"] == "user")
        passages = retriever.search(f"{earlier} {question}".strip(), k=3)
        return answer(question, passages), passages

    return ask
