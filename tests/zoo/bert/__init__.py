"""The zoo's BERT (official/nlp/Bert) pre-training at a tiny config, against MindSpore 2.10's losses."""
