"""Real servers for the tests that need them: a PostgreSQL server and a dask cluster.

PostgreSQL: the server at ``$SVMTUNE_POSTGRES_URL`` (``.ci/run`` starts one with
``.ci/postgres.sh``), else a throwaway one this session starts with that script when the server
binaries are installed. Each test gets a database of its own. Without a server the tests skip,
saying why; with ``SVMTUNE_REQUIRE_POSTGRES=1`` (CI) they fail instead.

dask: a ``dask scheduler`` and two ``dask worker`` processes on loopback, started per test.

Property tests (hypothesis) draw fresh examples on every run, to keep searching the parameter
box; ``SVMTUNE_HYPOTHESIS_PROFILE=ci`` (``.ci/run``) draws a fixed sequence instead, so that a CI
verdict is reproducible. A counterexample found on a random run is a bug to fix (hypothesis
prints it and replays it first on the next run).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("SVMTUNE_HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["SVMTUNE_HYPOTHESIS_PROFILE"])

ROOT = Path(__file__).resolve().parents[1]
# The tests' own helper modules (``tests._oracles``, ``tests.solvers._data``, ...) live in the
# checkout: it goes on the path after the installed packages, so ``import svmtune`` gets the
# installed package (an editable install is the checkout anyway).
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))
# Some packages install a top-level ``tests`` package of their own into site-packages (baycomp,
# the reference of the Bayesian tests, does): a worker process (loky, dask) that unpickles a
# test's function would import that one. A folder holding only a link to this checkout's
# ``tests`` goes first on the path, here and (PYTHONPATH) in every process the tests start;
# ``svmtune`` still comes from the installed package.
_TESTS_ONLY = Path(tempfile.mkdtemp(prefix="svmtune-tests-path-"))
(_TESTS_ONLY / "tests").symlink_to(ROOT / "tests", target_is_directory=True)
sys.path.insert(0, str(_TESTS_ONLY))
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(_TESTS_ONLY), os.environ.get("PYTHONPATH")) if p
)
POSTGRES_SCRIPT = ROOT / ".ci" / "postgres.sh"


def unavailable(what: str, reason: str) -> None:
    """Skip the test (or fail it, when the environment requires ``what``)."""
    if os.environ.get(f"SVMTUNE_REQUIRE_{what.upper()}") == "1":
        pytest.fail(f"{reason} (SVMTUNE_REQUIRE_{what.upper()}=1: not skipping)")
    pytest.skip(reason)


def _start_postgres() -> tuple[str | None, str, Path | None]:
    """Start a throwaway server with .ci/postgres.sh: (url or None, why not, its directory)."""
    if sys.platform == "win32" or shutil.which("bash") is None:
        return None, "no bash to run .ci/postgres.sh", None
    base = Path(tempfile.mkdtemp(prefix="svmtune-pg-"))
    base.chmod(0o755)  # the server runs as the unprivileged `postgres` user when we are root
    proc = subprocess.run(
        ["bash", str(POSTGRES_SCRIPT), "start", str(base / "pg")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if proc.returncode != 0:
        shutil.rmtree(base, ignore_errors=True)
        why = (proc.stderr or proc.stdout).strip().splitlines()
        return None, f"could not start PostgreSQL: {why[-1] if why else proc.returncode}", None
    url = proc.stdout.strip().rpartition("SVMTUNE_POSTGRES_URL=")[2]
    return url, "", base


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server's maintenance database (``.../postgres``)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        unavailable("postgres", "psycopg is not installed: pip install 'svmtune[postgres]'")
    url = os.environ.get("SVMTUNE_POSTGRES_URL")
    base = None
    if not url:
        url, why, base = _start_postgres()
        if url is None:
            unavailable("postgres", f"no PostgreSQL server: SVMTUNE_POSTGRES_URL unset and {why}")
    assert url is not None
    yield url
    if base is not None:
        subprocess.run(["bash", str(POSTGRES_SCRIPT), "stop", str(base / "pg")], timeout=60)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: str) -> Iterator[str]:
    """A new, empty database on the server (dropped after the test)."""
    import sqlalchemy as sa

    name = f"svmtune_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(postgres_server, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except sa.exc.OperationalError as exc:
        admin.dispose()
        unavailable("postgres", f"the PostgreSQL server at {postgres_server} refused: {exc}")
    url = sa.make_url(postgres_server).set(database=name)
    yield url.render_as_string(hide_password=False)
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.dispose()


class DaskCluster:
    """A ``dask scheduler`` and ``dask worker`` processes on loopback (no nannies: a killed
    worker stays dead)."""

    def __init__(self, directory: Path, n_workers: int = 2) -> None:
        self.dir = directory
        self.scheduler_file = directory / "scheduler.json"
        self.logs: list = []
        self.scheduler = self._spawn(
            "scheduler",
            ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"],
        )
        deadline = time.monotonic() + 60
        while not self.scheduler_file.is_file():
            if self.scheduler.poll() is not None or time.monotonic() > deadline:
                self.close()
                unavailable("dask", f"the dask scheduler did not start: {self.log('scheduler')}")
            time.sleep(0.1)
        time.sleep(0.2)  # the file is written whole, but give the writer a moment
        self.address = json.loads(self.scheduler_file.read_text())["address"]
        self.workers = [
            self._spawn(
                f"worker{i}",
                ["worker", "--scheduler-file", str(self.scheduler_file), "--nthreads", "1"]
                + ["--no-nanny", "--no-dashboard", "--host", "127.0.0.1", "--name", f"w{i}"],
            )
            for i in range(n_workers)
        ]
        self.wait_for_workers(n_workers)

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen:
        log = open(self.dir / f"{name}.log", "wb")  # noqa: SIM115 - closed in close()
        self.logs.append(log)
        dask = Path(sys.executable).with_name("dask")  # the `dask` command of this environment
        if dask.is_file():
            cmd = [str(dask), *args]
        else:  # pragma: no cover - an environment without its scripts
            cmd = [sys.executable, "-m", "distributed.cli.dask_" + args[0], *args[1:]]
        if args[0] == "scheduler":
            cmd += ["--scheduler-file", str(self.scheduler_file)]
        return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=self.dir)

    def log(self, name: str) -> str:
        path = self.dir / f"{name}.log"
        return path.read_text(errors="replace")[-2000:] if path.is_file() else ""

    def n_workers(self) -> int:
        from distributed import Client

        with Client(self.address, timeout=10) as client:
            return len(client.scheduler_info()["workers"])

    def wait_for_workers(self, n: int) -> None:
        deadline = time.monotonic() + 90
        while self.n_workers() < n:
            dead = [w for w in self.workers if w.poll() is not None]
            if dead or time.monotonic() > deadline:
                self.close()
                unavailable("dask", f"dask workers did not start: {self.log('worker0')}")
            time.sleep(0.2)

    def close(self) -> None:
        for p in [*getattr(self, "workers", []), self.scheduler]:
            if p.poll() is None:
                p.terminate()
        for p in [*getattr(self, "workers", []), self.scheduler]:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for log in self.logs:
            log.close()


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[DaskCluster]:
    """A real dask cluster on loopback: a scheduler and two single-threaded workers."""
    directory = tmp_path / "dask"
    directory.mkdir()
    cluster = DaskCluster(directory)
    try:
        yield cluster
    finally:
        cluster.close()
