"""``pytest-rag generate``: cases from a folder of documents, for a person to review.

* :mod:`.documents`: text, Markdown, HTML and PDF read as paragraphs;
* :mod:`.passages`: passages with ids that survive edits elsewhere in a document;
* :mod:`.kinds`: the kinds of question, their weights, and the seeded plan of which passages each
  question rests on;
* :mod:`.offline`: questions made from the passages' sentences, without a language model;
* :mod:`.llm`: the versioned generation templates and their typed reply;
* :mod:`.metric`: writing one case and checking it against its passages, as a metric the session
  scores (so the engine's cache, dry run, budget and batches apply);
* :mod:`.command`: the command itself.
"""
