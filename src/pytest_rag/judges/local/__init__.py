"""The offline judge, ``local`` (``--rag-judge=local``, the default): no API key, no network, CPU only.

It scores grounding, relevance, coverage and correctness from lexical overlap and WordLlama's static
embeddings, turned into probabilities by small logistic models fitted on human-labelled data (see
``docs/offline-judge.md`` for what it can and cannot see). Nothing is imported here, so naming the
judge does not load its model.

The modules:

* :mod:`.judge`: :class:`~.judge.LocalJudge`, the :class:`~pytest_rag.judges.protocol.Judge` a run uses;
* :mod:`.embeddings`: the embedder its judge hands to the metrics that compare meanings;
* :mod:`.prices`: what it costs (nothing);
* :mod:`.tasks`: how it answers each kind of judge question; :mod:`.scorer`: the calibrated
  probabilities, from the models :mod:`.calibration` reads (fitted into ``calibration.json``);
  :mod:`.features`: what those models read;
* :mod:`.embedder`: WordLlama, loaded from disk;
* :mod:`.entailment`: a small learned aligner over WordLlama's token vectors that reads a context span
  and a sentence in order (weights in ``entailment.npz``, trained by ``scripts/train_entailment.py``);
  its probability is one of the sentence model's features; :mod:`.entailment_input` reads texts and
  pairs into what it reads (shared with the training script), and :mod:`.sentence_pieces` tokenises
  the overlapping premise spans once per sentence;
* :mod:`.claims`: the claims an answer sentence makes (compound sentences cut, hedges marked);
* :mod:`.alignment`, :mod:`.context_index`, :mod:`.lexical` and :mod:`.spans`: answer sentences
  and their claims aligned to the context spans that may back them (one to three read together);
* one module per edit it detects in a near copy of a context sentence: :mod:`.numbers`,
  :mod:`.negation`, :mod:`.comparisons`, :mod:`.names`, :mod:`.slots`, :mod:`.unbacked`, :mod:`.conditions`, with the word
  lists they share in :mod:`.opposites`, :mod:`.normalise` (name and date forms, ``name_forms.json``)
  and :mod:`.conversational_register` (first person and chat words);
* one module per form a number takes that the number check would otherwise call unbacked:
  :mod:`.rounding` (rounded numbers and bounds), :mod:`.money` (a currency as a symbol, a code or a
  word), :mod:`.durations` (an amount of time in another unit) and :mod:`.shares` (a percentage or a
  fraction);
* :mod:`.framing` (sentences about the answer itself), :mod:`.chat_frames` (the chat around a
  claim: "Oh yeah, I think ..."), :mod:`.question` (short answers read with their question) and
  :mod:`.dialogue` (a conversation's turn read with the turns before it);
* :mod:`.answer_kind`: the kind of answer (short, summary, conversational) and its pass mark;
* :mod:`.asked_for`: what a question asks for (a time, an amount), which a terse answer's relevance
  is read by.
"""
