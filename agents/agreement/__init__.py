"""Judge agreement: a panel of judge models on the accuracy verdict (`run --judge-models A,B`), Cohen's kappa
with a cluster-bootstrap interval, and judge-vs-human agreement wherever people have adjudicated."""
