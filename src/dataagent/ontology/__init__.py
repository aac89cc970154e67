"""The ontology: the retrieval index over one ontology's datasets."""
