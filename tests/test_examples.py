"""The ready examples (examples/), as far as a machine without GPUs, Docker, Kubernetes or Slurm allows:
their structure, shellcheck, and their commands run for real — the Dockerfile's and the workflow's install
steps against the built wheel (by the published name, no index), the Kubernetes containers' commands
with the downward API's values of a recorded pod, the Slurm script under a stand-in sbatch / srun that
hide the GPUs of a job that did not ask for one."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys

import pytest

from helpers import NO_DRIVER_FOUND, gpu_machine, make_snapshot, torch_install

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")


def write_exe(path, body):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return str(path)


def _has_option(path, option):
    """Whether this checkout's CLI has `option` (status --hostname and fleet summarize --expect /
    --max-age come with the fleet work; the examples use them)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-m", "envcheck", *path, "--help"], capture_output=True, text=True,
                       env=env, timeout=60)
    return option in r.stdout


def _needs(path, option):
    if not _has_option(path, option):
        pytest.skip(f"`envcheck {' '.join(path)} {option}` is not in this checkout yet")


def _clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ENVCHECK_", "PYTHON", "VIRTUAL_ENV", "CONDA_", "PIP_", "SLURM", "GITHUB_"))}
    env.update(NO_COLOR="1", **extra)
    return env


@pytest.fixture(scope="module")
def snaps(tmp_path_factory):
    d = tmp_path_factory.mktemp("snaps")
    sp = "/opt/venv/lib/python3.11/site-packages"
    good = dict(gpu_machine("550.54.15", "12.4", [("NVIDIA A100-SXM4-40GB", 40960)], cc=["8.0"]),
                **torch_install("2.5.1+cu124", "12.4", packages={"nvidia-cudnn-cu12": "9.1.0.70"}))
    # the CUDA libraries the cu124 wheel brings (pip), so that the good node passes
    good["libraries.txt"] = "".join(f"{sp}/nvidia/{d}/lib/{lib}\n" for d, lib in (
        ("cuda_runtime", "libcudart.so.12"), ("cudnn", "libcudnn.so.9"), ("cublas", "libcublas.so.12")))
    nogpu = dict(torch_install("2.5.1+cu124", "12.4"), **NO_DRIVER_FOUND)  # a live node: the driver looked for
    return {"good": make_snapshot(str(d / "good"), good), "nogpu": make_snapshot(str(d / "nogpu"), nogpu)}


def _wrapper(bindir, real):
    """An `envcheck` on PATH that runs `real` envcheck; `status` replays $ENVCHECK_FAKE_SNAPSHOT when set
    (standing for the node it runs on)."""
    return write_exe(bindir / "envcheck",
                     'if [ "$1" = status ] && [ -n "${ENVCHECK_FAKE_SNAPSHOT:-}" ]; then shift; '
                     f'exec {real} status --snapshot "$ENVCHECK_FAKE_SNAPSHOT" "$@"; fi\n'
                     f'exec {real} "$@"')


# -- shell ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("script", ["install_scripts/install.sh", "install_scripts/entrypoint.sh",
                                    "examples/slurm/envcheck-fleet.sbatch"])
def test_shell_scripts_pass_shellcheck(script):
    path = os.path.join(ROOT, script)
    r = subprocess.run(["sh", "-n", path], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    if not shutil.which("shellcheck"):
        pytest.skip("shellcheck is not installed (apt-get install shellcheck)")
    r = subprocess.run(["shellcheck", "-s", "sh", path], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout


# -- Docker --------------------------------------------------------------------------------------

def _dockerfile_instructions(path):
    """(INSTRUCTION, argument text) pairs, continuation lines joined, comments dropped."""
    out, cur = [], ""
    for line in open(path, encoding="utf-8"):
        s = line.rstrip("\n")
        if not s.strip() or s.lstrip().startswith("#"):
            continue
        cur += s.rstrip("\\").strip() + " "
        if not s.endswith("\\"):
            word, _, rest = cur.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
            cur = ""
    return out


def _env_pairs(text):
    return dict(re.findall(r"(\w+)=(\S+)", text))


def _copy_like_docker(ins, context, dest_root):
    """Do the COPY instructions (sources relative to the build context, destinations under dest_root;
    a relative destination is under the WORKDIR in force)."""
    workdir = "/"
    for k, a in ins:
        if k == "WORKDIR":
            workdir = os.path.join(workdir, a)
        if k != "COPY" or "--from=" in a:
            continue
        *srcs, dst = [x for x in a.split() if not x.startswith("--")]
        dst = os.path.join(workdir, dst) + ("/" if dst.endswith("/") else "")
        target = os.path.join(dest_root, dst.lstrip("/"))
        for src in srcs:
            path = os.path.join(context, src)
            if os.path.isdir(path):  # a folder's contents go into the destination, as Docker copies them
                shutil.copytree(path, target, ignore=shutil.ignore_patterns("__pycache__"), dirs_exist_ok=True)
            else:
                os.makedirs(target if dst.endswith("/") else os.path.dirname(target), exist_ok=True)
                shutil.copy(path, os.path.join(target, os.path.basename(src)) if dst.endswith("/") else target)


def test_dockerfile_builds_and_runs_its_commands(wheelhouse, tmp_path):
    """The build context is an envcheck checkout's root (envcheck is on no index yet): the COPY steps
    are done for real into a stand-in root, the RUN step installs the copied source (no index, the
    build backend from the wheelhouse), then the ENTRYPOINT runs a job."""
    context = ROOT
    ins = _dockerfile_instructions(os.path.join(EXAMPLES, "docker", "Dockerfile"))
    kinds = [k for k, _ in ins]
    assert kinds[: kinds.index("FROM") + 1] == ["ARG"] * kinds.index("FROM") + ["FROM"]
    for k, a in ins:  # every COPY source exists in the build context (the checkout's root)
        if k == "COPY":
            for src in [x for x in a.split() if not x.startswith("--")][:-1]:
                assert os.path.exists(os.path.join(context, src)), src
    args = dict(a.split("=", 1) for k, a in ins if k == "ARG" and "=" in a)
    assert args["ENVCHECK_SPEC"] == "/tmp/envcheck-src"  # the copied source, not a registry name
    entry, cmd = json.loads(dict(ins)["ENTRYPOINT"]), json.loads(dict(ins)["CMD"])
    assert entry == ["envcheck", "run", "--"] and cmd == ["python", "train.py"]
    env_vars = {}
    for k, a in ins:
        if k == "ENV":
            env_vars.update(_env_pairs(a))
    assert env_vars["ENVCHECK_INTERPRETER"] == "python3"

    # COPY, then the RUN step for real, with the image's folders under tmp_path
    image = tmp_path / "image"
    _copy_like_docker(ins, context, str(image))
    src = image / "tmp" / "envcheck-src"
    assert (src / "pyproject.toml").exists() and (src / "envcheck" / "__init__.py").exists()
    assert (src / "compat_matrix").is_dir() and (image / "workspace" / "train.py").exists()
    opt, usr_bin = tmp_path / "opt" / "envcheck", tmp_path / "usr-local-bin"
    usr_bin.mkdir(parents=True)
    (run,) = [a for k, a in ins if k == "RUN"]
    run = run.replace("/opt/envcheck", str(opt)).replace("/usr/local/bin", str(usr_bin))
    run = run.replace("/tmp/envcheck-src", str(src))
    path = f"{usr_bin}:/usr/local/bin:/usr/bin:/bin"
    env = _clean_env(**wheelhouse["env"], ENVCHECK_SPEC=str(src), PATH=path)
    r = subprocess.run(["sh", "-c", run], env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "envcheck, version" in r.stdout
    assert not src.exists()  # the source does not stay in the image
    # the container: ENTRYPOINT + CMD with the ENV lines; no GPU here and ENVCHECK_REQUIRE_GPU=1
    report = tmp_path / "envcheck-report.json"
    run_env = _clean_env(PATH=path, **dict(env_vars, ENVCHECK_REPORT=str(report)))
    job = ["python3", "-c", "print('trained')"]
    r = subprocess.run(entry + job, env=run_env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "trained\n", r.stderr  # warn: report, then train
    assert "no-gpu-driver" in r.stderr
    assert json.loads(report.read_text())["schema"] == "envcheck/report/1"
    r = subprocess.run(entry + job, env=dict(run_env, ENVCHECK_MODE="block"), capture_output=True, text=True,
                       timeout=300, cwd=tmp_path)
    assert r.returncode == 3 and r.stdout == ""


def test_fleet_image_builds_the_wheel_then_installs_only_it(wheelhouse, tmp_path):
    """examples/docker/fleet.Dockerfile: the first stage's RUN (pip wheel of the copied source) for real,
    then the second stage's pip install of that wheel into a fresh venv (the user it adds is not made
    here), and the installed envcheck answers."""
    path = os.path.join(EXAMPLES, "docker", "fleet.Dockerfile")
    ins = _dockerfile_instructions(path)
    assert [k for k, _ in ins].count("FROM") == 2 and json.loads(dict(ins)["ENTRYPOINT"]) == ["envcheck"]
    assert dict(ins)["USER"] == "10001"
    first = ins[: [k for k, _ in ins].index("FROM", 2)]
    stage1 = tmp_path / "stage1"
    _copy_like_docker(first, ROOT, str(stage1))
    assert (stage1 / "src" / "pyproject.toml").exists() and (stage1 / "src" / "envcheck").is_dir()
    run1 = [a for k, a in first if k == "RUN"][0].replace("/dist", str(tmp_path / "dist"))
    env = _clean_env(**wheelhouse["env"], PATH="/usr/local/bin:/usr/bin:/bin")
    r = subprocess.run(["sh", "-c", run1.replace("python ", f"{sys.executable} ", 1)], cwd=stage1 / "src", env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    (whl,) = os.listdir(tmp_path / "dist")
    assert whl.startswith("envcheck_gpu-") and whl.endswith(".whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    run2 = [a for k, a in ins[len(first):] if k == "RUN"][0]
    pip_cmd = run2.split(" && ")[0].replace("/tmp/dist", str(tmp_path / "dist")).replace("python ", f"{venv}/bin/python ", 1)
    r = subprocess.run(["sh", "-c", pip_cmd], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([str(venv / "bin" / "envcheck"), "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "envcheck, version" in r.stdout


# -- Kubernetes ----------------------------------------------------------------------------------

def _load_yaml_docs(path):
    yaml = pytest.importorskip("yaml")
    with open(path, encoding="utf-8") as fh:
        return [d for d in yaml.safe_load_all(fh) if d is not None]


# What `kubectl get pod -o yaml` shows of a DaemonSet pod once scheduled: its name is not its node's.
RECORDED_POD = {"metadata": {"name": "envcheck-reports-x7k2p", "namespace": "default"},
                "spec": {"nodeName": "gpu-node-7", "serviceAccountName": "default"},
                "status": {"hostIP": "10.0.3.17", "podIP": "10.244.3.9"}}


def _container_env(container, pod):
    """The container's environment as the kubelet makes it: values, and downward-API fieldRefs
    resolved against the pod."""
    out = {}
    for e in container.get("env", []):
        if "value" in e:
            out[e["name"]] = str(e["value"])
        else:
            node = pod
            for part in e["valueFrom"]["fieldRef"]["fieldPath"].split("."):
                node = node[part]
            out[e["name"]] = str(node)
    return out


def _check_containers(spec):
    for c in spec.get("initContainers", []) + spec["containers"]:
        assert set(c) <= {"name", "image", "command", "args", "env", "volumeMounts", "resources"}, c
        assert isinstance(c["command"], list) and all(isinstance(x, str) for x in c["command"])
        for e in c.get("env", []):
            assert set(e) in ({"name", "value"}, {"name", "valueFrom"}), e


def test_kubernetes_pod_checks_in_an_init_container():
    (pod,) = _load_yaml_docs(os.path.join(EXAMPLES, "kubernetes", "pod-initcontainer.yaml"))
    assert pod["kind"] == "Pod" and pod["apiVersion"] == "v1"
    _check_containers(pod["spec"])
    init = pod["spec"]["initContainers"][0]
    assert init["command"][:2] == ["envcheck", "status"] and "--require-gpu" in init["command"]
    assert init["resources"]["limits"]["nvidia.com/gpu"] == 1
    train = pod["spec"]["containers"][0]
    assert train["command"][:3] == ["envcheck", "run", "--"]
    assert init["image"] == train["image"]  # the check sees the training image's libraries
    for c in (init, train):
        assert _container_env(c, RECORDED_POD)["ENVCHECK_HOSTNAME"] == "gpu-node-7"


def test_kubernetes_daemonset_names_reports_by_node_and_the_cronjob_summarizes(tmp_path, snaps):
    _needs(["status"], "--hostname")
    docs = _load_yaml_docs(os.path.join(EXAMPLES, "kubernetes", "daemonset-reports.yaml"))
    kinds = {d["kind"]: d for d in docs}
    assert set(kinds) == {"PersistentVolumeClaim", "DaemonSet", "CronJob"}
    ds, cj = kinds["DaemonSet"], kinds["CronJob"]
    claim = kinds["PersistentVolumeClaim"]["metadata"]["name"]
    spec = ds["spec"]["template"]["spec"]
    _check_containers(spec)
    assert ds["spec"]["selector"]["matchLabels"] == ds["spec"]["template"]["metadata"]["labels"]
    assert spec["volumes"][0]["persistentVolumeClaim"]["claimName"] == claim
    jspec = cj["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    _check_containers(jspec)
    assert jspec["volumes"][0]["persistentVolumeClaim"]["claimName"] == claim
    assert jspec["restartPolicy"] in ("Never", "OnFailure")

    # the DaemonSet's loop body, once, in the recorded pod: hostname (and $HOSTNAME) say the pod's name
    reports = tmp_path / "reports"
    reports.mkdir()
    bindir = tmp_path / "bin"
    _wrapper(bindir, f'"{sys.executable}" -m envcheck')
    write_exe(bindir / "hostname", f"echo {RECORDED_POD['metadata']['name']}")
    c = spec["containers"][0]
    script = c["args"][0].replace("sleep 3600", "break").replace("/reports", str(reports))
    env = _clean_env(PATH=f"{bindir}:/usr/bin:/bin", PYTHONPATH=ROOT, HOSTNAME=RECORDED_POD["metadata"]["name"],
                     ENVCHECK_FAKE_SNAPSHOT=snaps["good"], **_container_env(c, RECORDED_POD))
    r = subprocess.run(c["command"] + [script], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert [p.name for p in reports.iterdir()] == ["gpu-node-7.json"]
    assert json.loads((reports / "gpu-node-7.json").read_text())["hostname"] == "gpu-node-7"

    # the CronJob's command over that volume
    _needs(["fleet", "summarize"], "--max-age")
    jc = jspec["containers"][0]
    argv = [str(reports) if a == "/reports" else a for a in jc["command"]]
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "gpu-node-7" in r.stdout


# -- GitHub Actions ------------------------------------------------------------------------------

def _checkout(dest):
    """What actions/checkout gives in envcheck's own repository: its source."""
    for part in ("envcheck", "compat_matrix"):
        shutil.copytree(os.path.join(ROOT, part), dest / part, ignore=shutil.ignore_patterns("__pycache__"))
    for f in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(os.path.join(ROOT, f), dest / f)


@pytest.mark.parametrize("workflow", ["envcheck.yml", "explain-new-issues.yml"])
def test_github_actions_install_step_refuses_what_is_not_envcheck(tmp_path, workflow):
    """In another project's repository the default source (`.`) is that project: the step stops
    before pip with the reason, instead of installing whatever `.` is; so does a bare registry name."""
    (wf,) = _load_yaml_docs(os.path.join(EXAMPLES, "github-actions", workflow))
    (job,) = wf["jobs"].values()
    (install,) = [s["run"] for s in job["steps"] if s.get("name", "").startswith("Install envcheck")]
    work = tmp_path / "w"
    work.mkdir()
    (work / "pyproject.toml").write_text('[project]\nname = "envcheck"\n')
    for src in (".", "envcheck", "envcheck-gpu", "other-0.1-py3-none-any.whl"):
        r = subprocess.run(["bash", "-e", "-c", install], cwd=work, capture_output=True, text=True, timeout=60,
                           env=_clean_env(ENVCHECK_SOURCE=src, RUNNER_TEMP=str(tmp_path / "t"),
                                          GITHUB_PATH=str(tmp_path / "p"), PATH="/usr/bin:/bin"))
        assert r.returncode == 1, (src, r.stderr)
        assert "::error::ENVCHECK_SOURCE=" in r.stdout and "neither a checkout of envcheck" in r.stdout
        assert not (tmp_path / "t").exists()  # no venv was made, pip never ran


def test_github_actions_workflow_installs_the_checkout_and_checks(wheelhouse, tmp_path):
    (wf,) = _load_yaml_docs(os.path.join(EXAMPLES, "github-actions", "envcheck.yml"))
    job = wf["jobs"]["gpu"]
    steps = job["steps"]
    assert all(("uses" in s) != ("run" in s) for s in steps)
    runs = "\n".join(s.get("run", "") for s in steps)
    from envcheck.cli import COMMANDS

    called = re.findall(r"(?m)^\s*envcheck (\w+)", runs)
    assert called and all(cmd in COMMANDS for cmd in called), called
    assert "install_scripts" not in runs  # works in any repository given a source
    assert job["env"]["ENVCHECK_SOURCE"] == "${{ vars.ENVCHECK_SOURCE || '.' }}"

    # run the steps as the runner would: each `run` in `bash -e`, GITHUB_PATH applied between steps;
    # the workspace is envcheck's checkout (the default source `.`)
    workspace, temp = tmp_path / "workspace", tmp_path / "runner-temp"
    workspace.mkdir()
    _checkout(workspace)
    temp.mkdir()
    gh_path, summary = tmp_path / "github_path", tmp_path / "step_summary"
    gh_path.write_text("")
    job_env = {k: str(v) for k, v in job.get("env", {}).items()}
    job_env["ENVCHECK_SOURCE"] = "."  # vars.ENVCHECK_SOURCE unset
    base = _clean_env(**wheelhouse["env"], **job_env,
                      RUNNER_TEMP=str(temp), GITHUB_PATH=str(gh_path), GITHUB_STEP_SUMMARY=str(summary),
                      PATH="/usr/local/bin:/usr/bin:/bin")
    install, check = steps[1], steps[2]
    r = subprocess.run(["bash", "-e", "-c", install["run"]], env=base, cwd=workspace, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    added = [ln for ln in gh_path.read_text().splitlines() if ln]
    assert len(added) == 1 and sorted(os.listdir(added[0])) == ["envcheck"]  # not the venv's python / pip
    env = dict(base, PATH=added[0] + ":" + base["PATH"])
    r = subprocess.run(["bash", "-e", "-c", check["run"]], env=env, cwd=workspace, capture_output=True, text=True,
                       timeout=300)
    # this machine has no GPU: --require-gpu fails the step, with the report in the summary and the file
    assert r.returncode == 1, r.stderr
    assert summary.read_text().startswith("### envcheck status: NOT OK")
    rep = json.loads((workspace / "envcheck-report.json").read_text())
    assert rep["schema"] == "envcheck/report/1" and any(f["id"] == "no-gpu-driver" for f in rep["findings"])


# -- Slurm ---------------------------------------------------------------------------------------

def test_slurm_script_under_a_stand_in_sbatch(tmp_path, snaps):
    """sbatch reads the #SBATCH lines; its srun runs the task on each node of the allocation, and shows
    the GPUs only when the job asked for them (ConstrainDevices); node gpu04 never reports."""
    _needs(["status"], "--hostname")
    _needs(["fleet", "summarize"], "--expect")
    script = os.path.join(EXAMPLES, "slurm", "envcheck-fleet.sbatch")
    directives = re.findall(r"^#SBATCH (\S+)", open(script, encoding="utf-8").read(), re.M)
    assert any(d.startswith("--gres=gpu") for d in directives), directives
    assert "--ntasks-per-node=1" in directives

    bindir = tmp_path / "bin"
    real = f'"{sys.executable}" -m envcheck'
    envcheck = tmp_path / "shared" / "envcheck"  # ENVCHECK=... as the script's comment says
    _wrapper(envcheck.parent, real)
    # srun: skip its options; on each node, GPUs only for a job with --gres=gpu; gpu04 is down
    write_exe(bindir / "srun",
              'while [ "$#" -gt 0 ]; do case $1 in --*) shift;; *) break;; esac; done\n'
              'for n in gpu01 gpu02 gpu03; do\n'
              '  snap=' + snaps["nogpu"] + '\n'
              '  case $FAKE_SBATCH_DIRECTIVES in *--gres=gpu*) [ "$n" = gpu03 ] || snap=' + snaps["good"] + ';; esac\n'
              '  SLURMD_NODENAME=$n ENVCHECK_FAKE_SNAPSHOT=$snap "$@" || exit 1\n'
              'done')
    write_exe(bindir / "sbatch",
              'script=$1\n'
              'FAKE_SBATCH_DIRECTIVES=$(sed -n "s/^#SBATCH //p" "$script" | tr "\\n" " ")\n'
              'export FAKE_SBATCH_DIRECTIVES SLURM_JOB_ID=4242 SLURM_JOB_NODELIST="gpu[01-04]"\n'
              'exec sh "$script"')
    env = _clean_env(PATH=f"{bindir}:/usr/bin:/bin", PYTHONPATH=ROOT, ENVCHECK=str(envcheck))
    r = subprocess.run(["sbatch", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    out = tmp_path / "envcheck-reports" / "4242"
    assert sorted(p.name for p in (out / "nodes").iterdir()) == ["gpu01.json", "gpu02.json", "gpu03.json"]
    for n in ("gpu01", "gpu02", "gpu03"):
        assert json.loads((out / "nodes" / f"{n}.json").read_text())["hostname"] == n
    summary = json.loads((out / "summary.json").read_text())
    assert summary["schema"] == "envcheck/fleet/1"
    assert summary["failing"] == ["gpu03"]  # --require-gpu: the node without a visible GPU fails
    assert summary["missing"] == ["gpu04"]
    assert r.stdout.startswith("### envcheck fleet")  # the readable summary in the job's output

    # the same job without --gres=gpu: every node hides its GPUs, and every node fails
    bare = tmp_path / "bare.sbatch"
    bare.write_text(re.sub(r"^#SBATCH --gres=gpu\S*\n", "", open(script, encoding="utf-8").read(), flags=re.M))
    shutil.rmtree(out)
    r = subprocess.run(["sbatch", str(bare)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failing"] == ["gpu01", "gpu02", "gpu03"]
