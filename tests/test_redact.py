"""Snapshots safe to share (issue 14 point 6): environ.json takes variables by an allow-list of names
(never TF_TOKEN_*, HF_TOKEN, ...), secret-looking values are masked, `envcheck snapshot --redact` replaces
host names, user names in paths, GPU UUIDs and serials across every file, consistently, and the snapshot
still replays to the same verdict; the command says what to review before posting."""

from __future__ import annotations

import io
import json
import os
import re
import socket
import subprocess
import sys
import tarfile

import pytest

from envcheck.snapshot.redact import ENV_ALLOW, filter_environ, mask_value
from helpers import gpu_machine, make_snapshot, torch_install

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = "gpu-node-17.cluster.example.org"
USER = "jdoe"
UUIDS = ["GPU-8a6c1e2f-3b4d-5e6f-7a8b-9c0d1e2f3a4b", "GPU-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901"]
SERIALS = ["1324021012345", "1324021067890"]
SECRETS = {
    "TF_TOKEN_app_terraform_io": "tfe.abcdefghijklmnop.atlasv1.SECRETSECRETSECRET",  # Terraform's token
    "TF_VAR_db_password": "hunter2-terraform",
    "HF_TOKEN": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "GITHUB_TOKEN": "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "NCCL_IB_HCA": "mlx5_0",  # not on the list: NCCL_* only by name
}


def envcheck(args, env=None, **kw):
    e = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
    e.update(env or {})
    r = subprocess.run([sys.executable, "-m", "envcheck", *args], capture_output=True, env=e, timeout=180, **kw)
    assert b"Traceback" not in r.stderr, r.stderr.decode()
    return r


def _all_text(path):
    """Every file of a snapshot folder or archive: {name: text}."""
    out = {}
    if os.path.isdir(path):
        for name in os.listdir(path):
            with open(os.path.join(path, name), encoding="utf-8", errors="surrogateescape") as fh:
                out[name] = fh.read()
    else:
        with tarfile.open(path) as tf:
            for m in tf:
                out[m.name] = tf.extractfile(m).read().decode("utf-8", "surrogateescape")
    return out


@pytest.fixture()
def rich_snapshot(tmp_path):
    """A snapshot that names its host, its user and its GPUs everywhere a real one can."""
    home = f"/home/{USER}"
    sp = f"{home}/miniconda3/envs/train/lib/python3.11/site-packages"
    files = dict(gpu_machine("550.54.15", "12.4", [("NVIDIA H100 80GB HBM3", 81559)] * 2, cc=["9.0", "9.0"]),
                 **torch_install("2.5.1+cu124", "12.4", packages={"nvidia-cudnn-cu12": "9.1.0.70"}))
    files["meta.json"] = {"schema": "envcheck/snapshot/1", "created": "2026-11-22T00:00:00+00:00", "hostname": HOST}
    files["libraries.txt"] = (f"{sp}/nvidia/cuda_runtime/lib/libcudart.so.12\n{sp}/nvidia/cudnn/lib/libcudnn.so.9\n"
                              f"{sp}/nvidia/cublas/lib/libcublas.so.12\n")
    files["environ.json"] = {
        "CUDA_VISIBLE_DEVICES": ",".join(UUIDS), "NVIDIA_VISIBLE_DEVICES": UUIDS[1],
        "PATH": f"{home}/miniconda3/envs/train/bin:{home}/.local/bin:/usr/bin",
        "CONDA_PREFIX": f"{home}/miniconda3/envs/train", "SLURMD_NODENAME": "gpu-node-17",
        "LD_LIBRARY_PATH": f"/scratch/{USER}/cudnn/lib:/usr/local/cuda/lib64",
        "PIP_INDEX_URL": "https://deploy:s3cr3t@pypi.internal/simple",  # an old snapshot's extra variable
        "XLA_FLAGS": "--xla_gpu_cuda_data_dir=/usr/local/cuda --auth_token=abc123def456",
        **SECRETS,
    }
    files["nvml.json"] = {"driver_version": "550.54.15", "cuda_driver_version": 12040,
                          "gpus": [{"name": "NVIDIA H100 80GB HBM3", "compute_capability": [9, 0],
                                    "memory_total_mib": 81559, "uuid": u, "serial": s}
                                   for u, s in zip(UUIDS, SERIALS)]}
    files["nvidia-smi.txt"] += "".join(f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: {u})\n" for i, u in enumerate(UUIDS))
    files["nvidia-smi.txt"] += f"    Serial Number                         : {SERIALS[0]}\n"
    files["python.json"] = {"version": "3.11.7", "implementation": "CPython", "platform": "linux",
                            "machine": "x86_64", "executable": f"{home}/miniconda3/envs/train/bin/python"}
    files["proc-version.txt"] = ("Linux version 5.15.0-105-generic (buildd@lcy02-amd64-007) (gcc (Ubuntu 11.4.0) "
                                 "11.4.0) #115-Ubuntu SMP Mon Apr 15 09:52:04 UTC 2024\n")
    files["captures.json"] = {"nvcc.txt": {"status": "not-found", "detail": f"no nvcc on {HOST}",
                                           "origin": f"{home}/bin"}}
    return make_snapshot(str(tmp_path / "src"), files)


def _leaks(texts):
    found = []
    pats = [re.escape(HOST), r"gpu-node-17", rf"(?<![a-z]){USER}(?![a-z])"] + [re.escape(u[4:]) for u in UUIDS] \
        + [re.escape(u[4:12]) for u in UUIDS] + SERIALS + [re.escape(v) for v in SECRETS.values()] \
        + ["s3cr3t", "abc123def456", "lcy02-amd64-007"]
    for name, text in texts.items():
        for p in pats:
            if re.search(p, text, re.I):
                found.append((name, p))
    return found


@pytest.mark.parametrize("archive", [False, True], ids=["folder", "archive"])
def test_redact_a_full_snapshot(tmp_path, rich_snapshot, archive):
    assert _leaks(_all_text(rich_snapshot))  # the source does name them
    out = tmp_path / "shared"
    r = envcheck(["snapshot", str(out), "--from", rich_snapshot, "--redact"] + (["--archive"] if archive else []))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.decode().splitlines()
    assert lines[-1].startswith("Redacted (") and "review environ.json" in lines[-1]
    path = str(out) + (".tar.gz" if archive else "")
    texts = _all_text(path)
    assert not _leaks(texts), _leaks(texts)
    meta = json.loads(next(t for n, t in texts.items() if n.endswith("meta.json")))
    assert meta["hostname"] == "redacted-host" and "GPU UUIDs" in meta["redacted"]
    env = json.loads(next(t for n, t in texts.items() if n.endswith("environ.json")))
    assert set(env) <= ENV_ALLOW and "TF_TOKEN_app_terraform_io" not in env and "PIP_INDEX_URL" not in env
    # consistently: the same GPU is the same placeholder in environ.json, nvml.json and nvidia-smi.txt
    nvml = json.loads(next(t for n, t in texts.items() if n.endswith("nvml.json")))
    assert env["CUDA_VISIBLE_DEVICES"] == ",".join(g["uuid"] for g in nvml["gpus"])
    assert env["NVIDIA_VISIBLE_DEVICES"] == nvml["gpus"][1]["uuid"] != nvml["gpus"][0]["uuid"]
    smi = next(t for n, t in texts.items() if n.endswith("nvidia-smi.txt"))
    assert nvml["gpus"][0]["uuid"] in smi and "REDACTED-SERIAL-1" in smi and nvml["gpus"][0]["serial"] == "REDACTED-SERIAL-1"
    assert env["PATH"].startswith("/home/user1/miniconda3/envs/train/bin:/home/user1/.local/bin")
    assert env["LD_LIBRARY_PATH"].startswith("/scratch/user1/cudnn/lib")
    assert "--auth_token=***" in env["XLA_FLAGS"] and "/usr/local/cuda" in env["XLA_FLAGS"]
    # it still replays to the same verdict
    before = json.loads(envcheck(["status", "--json", "--snapshot", rich_snapshot]).stdout)
    after = json.loads(envcheck(["status", "--json", "--snapshot", path]).stdout)
    assert after["hostname"] == "redacted-host"
    for key in ("ok", "driver", "toolkit", "python"):
        assert before[key] == after[key], key
    assert [f["id"] for f in before["findings"]] == [f["id"] for f in after["findings"]]
    assert [g["name"] for g in before["gpus"]] == [g["name"] for g in after["gpus"]]
    assert before["frameworks"]["torch"]["version"] == after["frameworks"]["torch"]["version"]


def test_live_snapshot_never_captures_secrets_and_redacts_this_host(tmp_path):
    env = dict(SECRETS, CUDA_VISIBLE_DEVICES=UUIDS[0], PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True",
               TF_CPP_MIN_LOG_LEVEL="2", CUDA_HOME="https://alice:pw123@example.com/cuda",
               TF_FORCE_GPU_ALLOW_GROWTH="true", NCCL_DEBUG="INFO", USER=USER,
               PATH=f"/home/{USER}/bin:" + os.environ["PATH"])
    r = envcheck(["snapshot", str(tmp_path / "plain")], env=env)
    assert r.returncode == 0
    assert r.stdout.decode().splitlines()[-1].startswith("Before posting it, review environ.json")
    texts = _all_text(str(tmp_path / "plain"))
    captured = json.loads(texts["environ.json"])
    assert set(captured) <= ENV_ALLOW
    assert {"CUDA_VISIBLE_DEVICES", "PYTORCH_CUDA_ALLOC_CONF", "TF_CPP_MIN_LOG_LEVEL", "TF_FORCE_GPU_ALLOW_GROWTH",
            "NCCL_DEBUG", "CUDA_HOME", "PATH"} <= set(captured)
    assert captured["CUDA_HOME"] == "https://***@example.com/cuda"
    for name, text in texts.items():
        for v in list(SECRETS.values()) + ["pw123"]:
            assert v not in text, (name, v)
    # --redact on the live machine: its own host name and the user are gone too
    r = envcheck(["snapshot", str(tmp_path / "red"), "--redact"], env=env)
    assert r.returncode == 0
    texts = _all_text(str(tmp_path / "red"))
    host = socket.gethostname()
    for name, text in texts.items():
        assert not re.search(rf"(?<![A-Za-z0-9_\-]){re.escape(host)}(?![A-Za-z0-9_\-])", text, re.I), name
        assert not re.search(rf"(?<![a-z]){USER}(?![a-z])", text), name
        assert UUIDS[0][4:] not in text, name
    assert json.loads(texts["meta.json"])["hostname"] == "redacted-host"


@pytest.mark.parametrize("value,want", [
    ("https://user:pass@host/x", "https://***@host/x"),
    ("git+https://ghp_0123456789abcdefghij0123@github.com/o/r", "git+https://***@github.com/o/r"),
    ("--token=abcd --x=1", "--token=*** --x=1"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "***"),
    ("AKIAIOSFODNN7EXAMPLE", "***"),
    ("x:" + "a1" * 20, "x:***"),
    ("expandable_segments:True,max_split_size_mb:128", "expandable_segments:True,max_split_size_mb:128"),
    ("/nix/store/5rnfzla9kcx4mj5zdc7nlnv8na1najvg-cuda-12.2/lib:/usr/lib",
     "/nix/store/5rnfzla9kcx4mj5zdc7nlnv8na1najvg-cuda-12.2/lib:/usr/lib"),
    (",".join(UUIDS), ",".join(UUIDS)),
    ("/opt/oauth/bin:/usr/bin", "/opt/oauth/bin:/usr/bin"),
])
def test_mask_value(value, want):
    assert mask_value(value) == want


def test_allow_list_is_by_name():
    env = {"TF_TOKEN_app_terraform_io": "x", "TF_VAR_region": "x", "TF_CPP_MIN_LOG_LEVEL": "1",
           "CUDA_VISIBLE_DEVICES": "0", "CUDA_SECRET": "x", "NCCL_SOCKET_IFNAME": "eth0", "NCCL_DEBUG": "WARN",
           "XLA_FLAGS": "--a", "XLA_SOMETHING": "x", "PYTORCH_CUDA_ALLOC_CONF": "x", "HOME": "/root"}
    assert sorted(filter_environ(env)) == ["CUDA_VISIBLE_DEVICES", "NCCL_DEBUG", "PYTORCH_CUDA_ALLOC_CONF",
                                           "TF_CPP_MIN_LOG_LEVEL", "XLA_FLAGS"]
    # every variable envcheck itself reads from environ.json is on the list
    src = io.open(os.path.join(ROOT, "envcheck", "environment", "__init__.py"), encoding="utf-8").read()
    src += io.open(os.path.join(ROOT, "envcheck", "checks", "driver.py"), encoding="utf-8").read()
    used = set(re.findall(r'env\.get\("([A-Z_]+)"', src)) | set(re.findall(r"env\.get\('([A-Z_]+)'", src))
    assert used and used <= ENV_ALLOW, used - ENV_ALLOW


# -- issue 18: what is known to be the user, wherever it stands; URL credentials in every file ------------

def test_redact_the_known_user_in_any_path_form_and_url_secrets_in_every_file(tmp_path):
    """The issue's leaks: the user under /scratch, C:\\Users, /mnt/nfs, /srv/jobs/USER-..., /tmp/...-USER
    (known from USER and the home folder, not from a /home path), credentials inside URLs in
    requires.json and secret query parameters; the summary names the categories, never the values."""
    user, other = "kwamena", "zsofia"  # USER, and the home folder's last part
    files = dict(gpu_machine("550.54.15", "12.4", [("NVIDIA H100 80GB HBM3", 81559)]),
                 **torch_install("2.5.1+cu124", "12.4"))
    files["environ.json"] = {"LD_LIBRARY_PATH": f"/scratch/{user}/cudnn/lib:/mnt/nfs/{user}/cuda/lib64",
                             "CUDA_HOME": f"/srv/jobs/{user}-4711/cuda", "PATH": f"/tmp/build-{user}/bin:/usr/bin",
                             "CUDA_CACHE_PATH": f"/home2/{other}/.nv"}
    files["python.json"] = {"version": "3.11.7", "implementation": "CPython", "platform": "win32",
                            "machine": "AMD64", "executable": f"C:\\Users\\{user}\\venv\\Scripts\\python.exe"}
    files["requires.json"] = {"torch": ["nvidia-cudnn-cu12==9.1.0.70",
                                        "mylib @ https://deploy:gh0stT0ken@git.example.org/mylib.whl"]}
    files["packages.json"] = {"torch": "2.5.1+cu124",
                              "x": "https://files.example.org/x.whl?X-Amz-Signature=5ecre7sig&token=t0psecret&v=1"}
    files["libraries.txt"] = (f"/mnt/nfs/{user}/lib/libcudart.so.12\n"
                              "https://cdn.example.org/lib.so?sig=s1gnature9&se=2027\n")
    src = make_snapshot(str(tmp_path / "src"), files)
    out = tmp_path / "shared"
    r = envcheck(["snapshot", str(out), "--from", src, "--redact"],
                 env={"USER": user, "LOGNAME": user, "HOME": f"/home2/{other}"})
    assert r.returncode == 0, r.stderr
    summary = r.stdout.decode().splitlines()[-1]
    assert "URL credentials" in summary and "secret URL parameters" in summary
    for secret in ("gh0stT0ken", "5ecre7sig", "t0psecret", "s1gnature9", "deploy"):
        assert secret not in summary
    texts = _all_text(str(out))
    for name, text in texts.items():
        for secret in (user, other, "gh0stT0ken", "5ecre7sig", "t0psecret", "s1gnature9", "deploy:"):
            assert secret not in text, (name, secret)
    env = json.loads(texts["environ.json"])
    n = env["LD_LIBRARY_PATH"].split("/")[2]
    assert re.fullmatch(r"user\d+", n)
    assert env["LD_LIBRARY_PATH"] == f"/scratch/{n}/cudnn/lib:/mnt/nfs/{n}/cuda/lib64"
    assert env["CUDA_HOME"] == f"/srv/jobs/{n}-4711/cuda" and env["PATH"] == f"/tmp/build-{n}/bin:/usr/bin"
    assert json.loads(texts["python.json"])["executable"] == f"C:\\Users\\{n}\\venv\\Scripts\\python.exe"
    req = json.loads(texts["requires.json"])["torch"]
    assert req == ["nvidia-cudnn-cu12==9.1.0.70", "mylib @ https://***@git.example.org/mylib.whl"]
    assert json.loads(texts["packages.json"])["x"] == \
        "https://files.example.org/x.whl?X-Amz-Signature=***&token=***&v=1"
    assert "?sig=***&se=2027" in texts["libraries.txt"]
    meta = json.loads(texts["meta.json"])
    assert "URL credentials" in meta["redacted"]


def test_a_name_is_replaced_only_as_a_whole_part(tmp_path):
    from envcheck.snapshot.redact import redact_files

    files = [("meta.json", b'{"hostname": "n1"}'),
             ("environ.json", json.dumps({"PATH": "/home/ann/bin:/opt/annex/bin:/x/ann2/bin:/y/ann-2/bin"}).encode())]
    out, counts = redact_files(files, extra_users=[])
    env = json.loads(dict(out)["environ.json"])
    assert env["PATH"].split(":")[1:3] == ["/opt/annex/bin", "/x/ann2/bin"]
    assert env["PATH"].split(":")[0].startswith("/home/user") and env["PATH"].split(":")[3].startswith("/y/user")


def test_25000_user_folders_are_all_replaced_in_one_pass(tmp_path):
    """The issue's 25,000 user folders in PATH (24 s before): every one is replaced, each by its own
    placeholder (benchmarks/redact_many_users.py times it)."""
    from envcheck.snapshot.redact import redact_files

    path = ":".join(f"/home/u{i:05d}x/bin" for i in range(25000))
    files = [("meta.json", b'{"hostname": "gpu-node-1"}'), ("environ.json", json.dumps({"PATH": path}).encode())]
    out, counts = redact_files(files)
    got = json.loads(dict(out)["environ.json"])["PATH"].split(":")
    assert counts["user names"] >= 25000 and len(got) == 25000
    assert not any(re.search(r"u\d{5}x", p) for p in got) and len(set(got)) == 25000


# -- cluster file systems and percent-encoded secrets (review 26) -----------------------------------------
# Path layouts as the sites document them: AWS ParallelCluster / HyperPod FSx for Lustre (/fsx), NERSC
# (/global/homes/<initial>/<user>, /pscratch/sd/<initial>/<user>), OLCF Frontier (/lustre/orion/<project>/
# scratch/<user>) and Summit (/gpfs/alpine/<project>/scratch/<user>), Princeton (/scratch/gpfs/<netid>),
# RPI AiMOS (/gpfs/u/home/<PROJ>/<PROJuser>), CSC Puhti (/scratch/<project>/<user>), Compute Canada
# (/project/def-<pi>/<user>), Flatiron (/mnt/home/<user>, /mnt/ceph/users/<user>), WSL (/mnt/c/Users/<user>),
# NVIDIA's own clusters as pasted in issues (/lustre/fsw/portfolios/<team>/users/<user>).
CLUSTER_PATHS = {
    "/fsx/{u}/miniconda3/envs/train/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so": ["{u}"],
    "/fsx/users/{u}/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9": ["{u}"],
    "/lustre/fsw/portfolios/llmservice/users/{u}/.venv/lib/python3.12/site-packages/nvidia/cublas/lib":
        ["{u}", "llmservice"],
    "/lustre/orion/csc538/scratch/{u}/conda/envs/x/lib/libcudart.so.12": ["{u}", "csc538"],
    "/gpfs/alpine/stf011/scratch/{u}/envs/x/lib/libcudart.so.11.0": ["{u}", "stf011"],
    "/gpfs/u/home/DLMS/DLMS{u}/scratch/miniconda3/lib/libcudnn.so.8": ["DLMS{u}"],
    "/gpfs/fs1/home/g/{u}/venv/lib/libnccl.so.2": ["{u}"],
    "/scratch/gpfs/{u}/.conda/envs/t/lib/libcudnn.so.9": ["{u}"],
    "/scratch/project_2001659/{u}/venv/lib/libcudnn.so.9": ["{u}", "project_2001659"],
    "/project/def-jsmith/{u}/envs/jax/lib/libcudnn.so.9": ["{u}", "def-jsmith"],
    "/mnt/{u}/venvs/torch/lib/python3.10/site-packages/torch/lib/libtorch.so": ["{u}"],
    "/mnt/home/{u}/envs/x/lib/libcudart.so.12": ["{u}"],
    "/mnt/ceph/users/{u}/venv/lib/libcudnn.so.9": ["{u}"],
    "/mnt/c/Users/{u}/AppData/Local/Programs/Python/Python311/python.exe": ["{u}"],
    "/global/homes/q/{u}/.local/lib/python3.11/site-packages/torch/lib/libtorch.so": ["{u}"],
    "/pscratch/sd/q/{u}/venv/lib/libcudnn.so.9": ["{u}"],
}


@pytest.mark.parametrize("form", sorted(CLUSTER_PATHS))
def test_cluster_file_system_paths_lose_their_user_and_project(form):
    from envcheck.snapshot.redact import redact_files

    user = "qmorales"  # not this machine's user: known only from the path itself
    path = form.format(u=user)
    files = [("meta.json", b'{"hostname": "n1"}'), ("libraries.txt", (path + "\n").encode()),
             ("environ.json", json.dumps({"LD_LIBRARY_PATH": os.path.dirname(path) + ":/usr/lib"}).encode())]
    out, counts = redact_files(files, extra_users=[])
    lib = dict(out)["libraries.txt"].decode()
    env = json.loads(dict(out)["environ.json"])
    for name in CLUSTER_PATHS[form]:
        name = name.format(u=user)
        assert name not in lib and name not in env["LD_LIBRARY_PATH"], (name, lib)
    assert counts["user names"] >= len(CLUSTER_PATHS[form])
    # the software part of the path stays: the snapshot still replays the same libraries
    tail = path.split("/")[-1]
    assert lib.rstrip("\n").endswith(tail) and env["LD_LIBRARY_PATH"].endswith(":/usr/lib")


def test_cluster_redaction_keeps_system_paths_and_software_folders():
    from envcheck.snapshot.redact import redact_files

    keep = ("/usr/local/cuda-12.4/lib64/libcudart.so.12\n/opt/conda/lib/libcudnn.so.9\n"
            "/usr/lib/x86_64-linux-gnu/libcuda.so.1\n/mnt/data/datasets/imagenet\n")
    out, counts = redact_files([("meta.json", b'{"hostname": "n1"}'), ("libraries.txt", keep.encode())],
                               extra_users=[])
    assert dict(out)["libraries.txt"].decode() == keep and counts["user names"] == 0


# pip reads credentials in a URL percent-encoded ("p@ss" is p%40ss); a URL inside a URL (a redirect target)
# carries its query percent-encoded (%3F, %3D, %26); an AWS presigned URL encodes the credential's slashes.
PERCENT_SECRETS = [
    ("https://jdoe:p%40ssw0rd%21@pypi.corp.example.com/simple/", "p%40ssw0rd", "https://***@pypi.corp.example.com"),
    ("https://__token__:pypi-AgEIcHlwaS5vcmcCJDk%3D@upload.pypi.org/legacy/", "AgEIcHlwaS5vcmc", "https://***@"),
    ("https://s3.amazonaws.com/b/x.whl?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE"
     "%2F20261126%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe",
     "fe5f80f77d5fa3beca038a248ff027d0445342fe", "X-Amz-Signature=***"),
    ("https://acct.blob.core.windows.net/w/x.whl?sv=2022-11-02&se=2026-12-01&sp=r&sig=Z%2FRHIX5Xcg0Mq2rqI3OlWTjEg2tYkboXr1P9ZUXDtkk%3D",
     "Z%2FRHIX5Xcg0Mq2rqI3OlWTjEg2tYkboXr1P9ZUXDtkk", "&sig=***"),
    ("https://login.example.com/continue?next=https%3A%2F%2Fmirror.example.com%2Fsimple%3Ftoken%3Ds3cr3tT0k%26page%3D2",
     "s3cr3tT0k", "%3Ftoken%3D***%26page%3D2"),
    ("https://mirror.example.com/simple?access_token%3Dabc123s3cret", "abc123s3cret", "access_token%3D***"),
    ("https://mirror.example.com/simple?x=1&api%5Fkey=k3yk3yk3y&y=2", "k3yk3yk3y", "api%5Fkey=***&y=2"),
]


@pytest.mark.parametrize("url,secret,kept", PERCENT_SECRETS, ids=[s for _, s, _ in PERCENT_SECRETS])
def test_percent_encoded_url_secrets_are_masked_in_every_file(url, secret, kept):
    from envcheck.snapshot.redact import redact_files

    files = [("meta.json", b'{"hostname": "n1"}'), ("packages.json", json.dumps({"x": url}).encode()),
             ("libraries.txt", (url + "\n").encode())]
    out, _ = redact_files(files, extra_users=[])
    for name, data in out:
        assert secret not in data.decode(), (name, data)
    assert kept in json.loads(dict(out)["packages.json"])["x"]


@pytest.mark.parametrize("value", ["https://mirror.example.com/simple?token%3Ds3cr3tT0k",
                                   "https://mirror.example.com/simple?api_key%3Ds3cr3tT0k&x=1"])
def test_mask_value_masks_a_percent_encoded_token(value):
    assert "s3cr3tT0k" not in mask_value(value) and "***" in mask_value(value)
