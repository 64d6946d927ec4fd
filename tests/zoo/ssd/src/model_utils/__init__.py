"""Stand-in for the zoo's model_utils package (only `config`)."""
