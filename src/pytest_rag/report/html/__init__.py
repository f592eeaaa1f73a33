"""The self-contained HTML report (``--rag-html``): one file with its data, plots, style and script."""
