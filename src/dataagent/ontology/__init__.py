"""The ontology: the dataset/field/relationship graph, dataset retrieval and join paths."""
