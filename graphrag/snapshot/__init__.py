"""One index generation in memory and everything derived from it (graph, corpus, names, BM25)."""
