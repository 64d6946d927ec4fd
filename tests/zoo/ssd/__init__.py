"""The zoo's SSD head and loss (official/cv/SSD), trained four steps against MindSpore 2.10's numbers."""
