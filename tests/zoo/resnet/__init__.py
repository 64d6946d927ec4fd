"""The zoo's ResNet (official/cv/ResNet), trained three steps against MindSpore 2.10's losses."""
