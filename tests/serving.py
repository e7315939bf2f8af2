"""The display's app served by waitress on a free local port, in a thread: for the page tests."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def serving(app, threads: int) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 (a free port) in a waitress thread; yields its base URL.

    End the app's streams (stop the companion) before leaving the block. The server polls with
    poll(), as ``thoughtwave serve`` does: closing it under select() from another thread can fail
    with EBADF in the server's thread (Pylons/waitress#468, fixed after waitress 3.0.2).
    """
    from waitress import create_server

    server = create_server(app, host="127.0.0.1", port=0, threads=threads, asyncore_use_poll=True)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.close()
        server.task_dispatcher.shutdown(timeout=5)
        thread.join(5)
