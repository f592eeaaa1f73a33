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
