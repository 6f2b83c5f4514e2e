"""Download a matrix bundle: HTTPS only, same-origin redirects only, a size cap and one deadline for all of it.

* ``https://`` URLs; ``http://`` only to a loopback address (127.0.0.0/8, ::1, localhost: tests,
  a local mirror).
* A redirect is followed only to the same scheme, host and port (at most 5 of them); a redirect to
  another host (127.0.0.2 is another host than 127.0.0.1) is refused, except from ``github.com`` to
  GitHub's release-asset hosts over https (:data:`GITHUB_ASSET_HOSTS`: that is where a release
  asset, :data:`DEFAULT_SOURCE`, is served from).
* Connecting may take at most :data:`CONNECT_TIMEOUT` seconds (less when ``timeout`` is shorter):
  an unreachable source is named as such within about 10 s, whatever ``--timeout`` says.
* ``timeout`` bounds the whole download, connection and every read included: each socket
  operation gets the time that is left, and data is read as it comes (a server that drips one
  byte a second is cut off at the deadline, not after the whole body).
* Certificates are checked against ``ENVCHECK_CA_BUNDLE`` (a PEM file: a private CA, or a test's
  self-signed certificate), else ``REQUESTS_CA_BUNDLE`` / ``SSL_CERT_FILE``, else certifi's
  bundle when installed, else the system's.
* ``HTTPS_PROXY`` / ``NO_PROXY`` are honoured (a CONNECT tunnel), except for loopback addresses.

Plain ``http.client`` (no ``requests``): it gives the control over each read that the deadline needs.
"""

from __future__ import annotations

import ipaddress
import os
import threading
import time
from typing import Any, List, Optional, Tuple
from urllib.parse import urljoin, urlsplit

from envcheck.errors import UsageError
from envcheck.known import PROJECT_URL

__all__ = ["download", "MAX_REDIRECTS", "DEFAULT_SOURCE", "STABLE_NAME", "CONNECT_TIMEOUT", "GITHUB_ASSET_HOSTS"]

MAX_REDIRECTS = 5
CONNECT_TIMEOUT = 8.0
#: the release asset's file name: .github/workflows/matrix-bundle.yml publishes the signed bundle
#: under it on the release tagged ``matrix`` (replaced by each new bundle), so its URL never changes
STABLE_NAME = "envcheck-matrix.tar.gz"
MATRIX_RELEASE_TAG = "matrix"
#: where `envcheck matrix update` takes the bundle from when --from is not given; empty while the project
#: has no public address (envcheck.known.PROJECT_URL): then `--from` is required
DEFAULT_SOURCE = f"{PROJECT_URL}/releases/download/{MATRIX_RELEASE_TAG}/{STABLE_NAME}" if PROJECT_URL else ""
#: github.com answers a release-asset URL with a redirect to one of these hosts
GITHUB_ASSET_HOSTS = ("objects.githubusercontent.com", "release-assets.githubusercontent.com")


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _origin(url: str) -> Tuple[str, str, int]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise UsageError(f"{url}: a matrix bundle is fetched over https:// only")
    host = (parts.hostname or "").lower()
    if not host:
        raise UsageError(f"{url}: no host in the URL")
    if scheme == "http" and not _is_loopback(host):
        raise UsageError(f"{url}: plain http is refused (only https://, or http:// to this machine's loopback "
                         "address for tests); use the https:// URL")
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError as exc:
        raise UsageError(f"{url}: bad port") from exc
    return scheme, host, port


def _ssl_context() -> Any:
    import ssl

    cafile = (os.environ.get("ENVCHECK_CA_BUNDLE") or os.environ.get("REQUESTS_CA_BUNDLE")
              or os.environ.get("SSL_CERT_FILE"))
    if not cafile:
        try:
            import certifi

            cafile = certifi.where()
        except ImportError:  # pragma: no cover - certifi comes with requests
            cafile = None
    try:
        ctx = ssl.create_default_context(cafile=cafile)
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(f"cannot load the CA certificates {cafile!r}: {exc}") from exc
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    return ctx


def _connection(scheme: str, host: str, port: int, remaining: float):  # type: ignore[no-untyped-def]
    import http.client
    import urllib.request

    proxy = None
    bypass = getattr(urllib.request, "proxy_bypass_environment", lambda h: False)
    if not _is_loopback(host) and not bypass(host):
        proxy = urllib.request.getproxies_environment().get(scheme)
    if proxy:
        pp = urlsplit(proxy if "://" in proxy else "http://" + proxy)
        _resolve_within(pp.hostname or "", remaining)
    else:
        _resolve_within(host, remaining)
    if scheme == "https":
        ctx = _ssl_context()
        if proxy:
            p = urlsplit(proxy if "://" in proxy else "http://" + proxy)
            conn = http.client.HTTPSConnection(p.hostname or "", p.port or 8080, timeout=remaining, context=ctx)
            conn.set_tunnel(host, port)
            return conn
        return http.client.HTTPSConnection(host, port, timeout=remaining, context=ctx)
    return http.client.HTTPConnection(host, port, timeout=remaining)


def _resolve_within(host: str, seconds: float) -> None:
    """Look ``host`` up within ``seconds`` (a thread: getaddrinfo takes no timeout of its own, and a
    resolver that does not answer would hold ``matrix update`` for its own retries). A name that does
    not resolve, or not in time, is "cannot reach" at once."""
    import socket

    if not host or _is_loopback(host):
        return
    try:
        ipaddress.ip_address(host.strip("[]"))
        return
    except ValueError:
        pass
    got: List[Any] = []

    def look() -> None:
        try:
            socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
            got.append(None)
        except OSError as exc:
            got.append(exc)

    t = threading.Thread(target=look, daemon=True)
    t.start()
    t.join(seconds)
    if not got:
        raise UsageError(f"cannot reach {host}: its name did not resolve within {seconds:g} s; check the network "
                         "or proxy (HTTPS_PROXY), or give a bundle with --from URL|FILE")
    if got[0] is not None:
        raise UsageError(f"cannot reach {host}: {_why(got[0])}; check the network or proxy (HTTPS_PROXY), or give a "
                         "bundle with --from URL|FILE")


def download(url: str, timeout: float, max_bytes: int) -> bytes:
    """The body of ``url`` (status 200), at most ``max_bytes``, within ``timeout`` seconds in all."""
    if not timeout > 0:
        raise UsageError("--timeout must be more than 0 seconds")
    clock = _Deadline(time.monotonic() + timeout)
    first = _origin(url)
    current = url
    fired: List[bool] = []
    try:
        for _ in range(MAX_REDIRECTS + 1):
            _same_host(url, current, first)
            body, location = _get(current, clock, fired, max_bytes)
            if body is not None:
                return body
            current = urljoin(current, location or "")
        raise UsageError(f"{url}: more than {MAX_REDIRECTS} redirects")
    except UsageError:
        raise
    except Exception as exc:
        if fired:
            raise UsageError(f"downloading {url} timed out after {timeout:g} s (the whole download must finish "
                             "in --timeout)") from exc
        return _failed(url, timeout, exc)
    raise AssertionError("unreachable")  # pragma: no cover


class _Deadline:
    """The seconds left of the whole download; ``socket.timeout`` once none are."""

    def __init__(self, at: float):
        self.at = at

    def left(self) -> float:
        import socket

        r = self.at - time.monotonic()
        if r <= 0:
            raise socket.timeout()
        return r


def _same_host(url: str, current: str, first: Tuple[str, str, int]) -> None:
    """A redirect stays on the host named (GitHub's release assets excepted)."""
    scheme, host, port = _origin(current)
    if (scheme, host, port) != first and not (first[:2] == ("https", "github.com") and scheme == "https"
                                              and host in GITHUB_ASSET_HOSTS and port == 443):
        raise UsageError(f"{url}: redirected to another host ({current}); refused (a bundle is taken "
                         "only from the host named)")


def _get(current: str, clock: _Deadline, fired: List[bool], max_bytes: int) -> Tuple[Optional[bytes], Optional[str]]:
    """One GET of ``current``: (body, None), or (None, Location) for a redirect."""
    import socket

    scheme, host, port = _origin(current)
    parts = urlsplit(current)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    conn = _connection(scheme, host, port, min(clock.left(), CONNECT_TIMEOUT))
    # a watchdog closes the socket at the deadline: a server that drips its headers a byte at a
    # time would otherwise keep each single read under the socket timeout for ever
    holder: List[Any] = []
    watchdog = threading.Timer(clock.left(), _cut, args=(holder, fired))
    watchdog.daemon = True
    watchdog.start()
    try:
        try:
            conn.connect()
        except OSError as exc:
            import ssl

            if fired or isinstance(exc, ssl.SSLError):
                raise
            raise UsageError(f"{current}: cannot reach {host}:{port} ({_why(exc)}); check the network or "
                             "proxy (HTTPS_PROXY), or give a bundle with --from URL|FILE") from exc
        # keep the socket: http.client drops conn.sock once a closing response is returned
        sock = conn.sock
        holder.append(sock)
        if fired:
            raise socket.timeout()
        conn.request("GET", path, headers={"User-Agent": "envcheck-matrix-update", "Accept-Encoding": "identity"})
        sock.settimeout(clock.left())
        resp = conn.getresponse()
        if resp.status in (301, 302, 303, 307, 308):
            loc = resp.getheader("Location")
            if not loc:
                raise UsageError(f"{current}: HTTP {resp.status} without a Location")
            return None, loc
        if resp.status != 200:
            raise UsageError(f"downloading {current} failed: HTTP {resp.status} {resp.reason}")
        return _body(current, resp, sock, clock, fired, max_bytes), None
    finally:
        watchdog.cancel()
        conn.close()


def _body(current: str, resp: Any, sock: Any, clock: _Deadline, fired: List[bool], max_bytes: int) -> bytes:
    """The response's body: at most ``max_bytes``, as long as its Content-Length says, before the deadline."""
    import socket

    length = resp.getheader("Content-Length")
    if length and length.isdigit() and int(length) > max_bytes:
        raise UsageError(f"{current}: the bundle is larger than {max_bytes} bytes ({length}); refused")
    buf = bytearray()
    while True:
        sock.settimeout(clock.left())
        chunk = resp.read1(65536)
        if not chunk:
            break
        buf.extend(chunk)
        if len(buf) > max_bytes:
            raise UsageError(f"{current}: the bundle is larger than {max_bytes} bytes; refused")
    if fired:
        raise socket.timeout()
    if length and length.isdigit() and int(length) != len(buf):
        raise UsageError(f"{current}: truncated download ({len(buf)} of {length} bytes)")
    return bytes(buf)


def _why(exc: BaseException) -> str:
    import socket

    if isinstance(exc, socket.timeout):
        return f"no answer within {CONNECT_TIMEOUT:g} s"
    if isinstance(exc, socket.gaierror):
        return f"the name does not resolve: {exc.strerror or exc}"
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def _cut(holder: List[Any], fired: List[bool]) -> None:
    import socket

    fired.append(True)
    for sock in holder:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _failed(url: str, timeout: float, exc: BaseException) -> bytes:
    import http.client
    import socket
    import ssl

    try:
        raise exc
    except socket.timeout as exc:
        raise UsageError(f"downloading {url} timed out after {timeout:g} s (the whole download must finish in "
                         "--timeout)") from exc
    except http.client.IncompleteRead as exc:
        raise UsageError(f"downloading {url}: truncated download ({len(exc.partial)} bytes received)") from exc
    except ssl.SSLError as exc:
        raise UsageError(f"downloading {url}: TLS failed ({exc.reason or exc}); a private CA can be given with "
                         "ENVCHECK_CA_BUNDLE=FILE.pem") from exc
    except (OSError, http.client.HTTPException, ValueError) as exc:
        raise UsageError(f"downloading {url} failed: {exc}") from exc
    except Exception as exc:  # noqa: BLE001 - anything a hostile server can provoke is a failed download
        raise UsageError(f"downloading {url} failed: {type(exc).__name__}: {exc}") from exc


def host_of(url: str) -> Optional[str]:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None
