"""What a local Dask cluster's worker processes run when they start (imported only where
``distributed`` is: the engine imports it once it starts a cluster)."""

from __future__ import annotations

from distributed.diagnostics.plugin import WorkerPlugin

from .. import interrupt


class LocalWorkerSignals(WorkerPlugin):
    """A local cluster's workers leave Ctrl-C to the run that started them, as the process
    pool's workers do (``interrupt.worker_signals``): a terminal's Ctrl-C reaches the whole
    process group, and a worker that died of it would be restarted and its task run again
    while the client is cancelling. SIGTERM (the nanny stopping a worker that does not close)
    releases what the worker holds (a solver process, a temporary file) and ends it.

    Registered with the client, so a worker the nanny restarts gets it too. Never used on a
    running cluster: its workers belong to whoever started them.
    """

    idempotent = True

    def setup(self, worker: object) -> None:
        interrupt.worker_signals()  # the worker's event loop runs in its main thread
