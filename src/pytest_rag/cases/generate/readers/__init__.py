"""Readers that turn a document's markup into blocks of plain text, with its headings as structure.

* :mod:`.blocks`: what every reader writes: paragraphs and list items as :class:`~.blocks.Block`,
  each under the titles of the sections it sits in;
* :mod:`.markup`: what the readers of reStructuredText and MyST share: which directives hold prose,
  and the text a role shows;
* :mod:`.rst`: reStructuredText, through docutils;
* :mod:`.markdown`: CommonMark and MyST Markdown, through markdown-it-py and mdit-py-plugins;
* :mod:`.html`: HTML, through the standard library's parser;
* :mod:`.plain`: plain text.

docutils and markdown-it-py are the ``docs`` extra (``pip install 'pytest-rag[docs]'``): a reader
whose parser is missing raises :class:`~.blocks.Unreadable` naming the extra, and the command lists
the file with that reason instead of reading its markup as text.
"""
