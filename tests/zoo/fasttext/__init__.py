"""The zoo's FastText (research/nlp/fasttext), trained three steps against MindSpore 2.10's losses."""
