"""Judge agreement: Cohen's kappa with a cluster-bootstrap interval between the judges of a run's panel
(`run --judge-models A,B`; the panel itself asks in agents/judging/panel.py), and judge-vs-human agreement
wherever people have adjudicated."""
