"""Plans: the resolver (:mod:`.resolve`), its outputs (:mod:`.output`) and building a venv (:mod:`.apply`)."""
