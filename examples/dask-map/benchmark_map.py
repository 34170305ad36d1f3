"""A benchmark map on a Dask cluster, in the shape of DeepEcho's
run_benchmark (seed 004): one task per configuration, each on a worker,
and one row per configuration in the table returned."""

import socket
import time

import pandas as pd
from distributed import get_client


def evaluate(config):
    """Cross-validates the configuration's model on a regression problem of
    its size, and says which worker did it."""
    from sklearn.datasets import make_regression
    from sklearn.linear_model import Lasso, Ridge
    from sklearn.model_selection import cross_val_score

    models = {"ridge": Ridge, "lasso": Lasso}
    X, y = make_regression(n_samples=config["samples"], n_features=config["features"], noise=1.0, random_state=0)
    start = time.perf_counter()
    score = cross_val_score(models[config["model"]](), X, y, cv=3).mean()
    return {**config, "score": round(float(score), 6), "seconds": round(time.perf_counter() - start, 3),
            "host": socket.gethostname()}


def run(configs):
    """Runs every configuration, the i-th on the i-th worker in turn, so
    that every worker takes part, and returns their rows in order."""
    client = get_client()
    workers = sorted(client.scheduler_info()["workers"])
    futures = [client.submit(evaluate, c, workers=[workers[i % len(workers)]], pure=False)
               for i, c in enumerate(configs)]
    return pd.DataFrame(client.gather(futures))
