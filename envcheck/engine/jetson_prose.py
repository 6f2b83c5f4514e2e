"""What a Jetson text's sentences and issue forms show about the build it runs (issue 20, jetson35); the evidence is
read by :mod:`envcheck.paste.readers.jetson_prose` and :mod:`envcheck.paste.readers.ort_template`.

* :func:`jetpack_python`: NVIDIA's framework wheels for a JetPack line are built for that JetPack's one Python
  (compat_matrix/jetson.toml ``[[wheel_python]]``: JetPack 4 -> Python 3.6, 5 -> 3.8, 6 -> 3.10). A text on a JetPack
  (named, or its L4T release) that names a newer Python - the reporter's own ("I need Python 3.8 in Jetpack4.6.1",
  dusty-nv/jetson-containers#344; "the JetPack v4.6 was still using Python3.6; hence, I manually installed Python3.8"),
  or the one a project or a newer wheel needs ("dependencies requiring at least Python 3.8 ... jetpack 4",
  dusty-nv/NanoLLM#15; "wheels ... for Python 3.8 ... would require JetPack 5", pytorch/pytorch#78067) - has no
  NVIDIA wheel for that Python on that JetPack: ``python-unsupported``. A Python the JetPack's wheels are built for,
  or an older one, says nothing; nor does a text whose torch came from PyPI (a ``pip install torch`` without another
  index: not NVIDIA's wheel, and what fails there is that build's CUDA).
* :func:`ort_jetson_release`: ONNX Runtime's issue form answered "Released Package" with a CUDA or TensorRT execution
  provider, on a Jetson the text names (a board, a ``-tegra`` kernel, L4T or JetPack): Microsoft's released packages
  (PyPI, NuGet, the release archives) have no Jetson CUDA build - "We don't have prebuilt packages for jetson"
  (microsoft/onnxruntime#11240), "there are no plans to do this ... the best we can do is a manual publish to jetson
  zoo" (microsoft/onnxruntime#20503) - so the installed package runs on the CPU only: ``framework-cpu-only``
  (microsoft/onnxruntime#24159, an Orin Nano with the released 1.20.1). A source build (the form's "Built from
  Source") is not judged, nor a text that names NVIDIA's Jetson build as the package's origin ("downloading it from
  Jetson zoo", microsoft/onnxruntime#22809: the form's "Released Package" there is the Zoo's wheel).
* :func:`container_l4t` (jetson38): a Jetson container image built for another JetPack line than the host's, read by
  :mod:`envcheck.paste.readers.jetson_image` (the image's L4T release from its tag, the host's from the first release
  the text names outside an image). NVIDIA's L4T images run only on the L4T line they were built for: "the r34.1.0
  containers only run (with CUDA) on r34.1.0 and newer" on an r32.6 host (dusty-nv/jetson-containers#149); "L4T R32.7
  containers can run on other versions of L4T R32.7 (JetPack 4.6+) ... L4T R35.x containers can run on other versions
  of L4T R35.x (JetPack 5.1+)" (the project's README, quoted in dusty-nv/jetson-containers#533); "r35.4 -> r36 was a
  big jump from JetPack5/Ubuntu 20.04 to JetPack6 ... those definitely needed rebuilt" (dusty-nv/jetson-containers#725);
  JetPack 4 images mount CUDA from the host, so "prior to JetPack 5.0 container images, GPU functionality doesn't work
  when a newer host OS is used" (threedots.ovh/blog/2022/04/cuda-on-nvidia-jetson-just-not-the-same). Which JetPack line
  an L4T major is comes from the matrix's ``[[jetpack]]`` rows (R32 -> 4, R34 / R35 -> 5, R36 -> 6, R38 -> 7): an image
  of another line than the host's, in a text that shows a failure, is ``driver-too-old`` (the host's L4T - its driver
  and CUDA - is not the release the image needs; the finding names which side is older). Images of the host's own line
  (another minor release: jetson-containers#261's r32.7.1 image on L4T 32.7.4) are not judged here: what failed there
  is read from the text's own messages. Where the text shows the loader failing on a CUDA / cuDNN library
  ("OSError: libcurand.so.10: cannot open shared object file" in an r32 image on a JetPack 5 or 6 host,
  dusty-nv/jetson-containers#164, yolact_edge#202), the finding is that library's cause (errors.toml's
  ``[[library]]`` rows: ``cuda-runtime-missing``, ``cudnn-missing``), which the mismatch explains: the message is what
  failed, the image's release why.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from envcheck.model import Finding, Severity
from envcheck.versions import version_tuple

__all__ = ["container_l4t", "container_mounts", "driver_placeholders", "findings", "jetpack_python", "jetson_memory",
           "ort_jetson_release"]

_PY_KEY = "python-named-"


def _split(value: Optional[str], parts: int) -> Optional[List[str]]:
    got = [p.strip() for p in (value or "").split(" | ", parts - 1)]
    return got if value and len(got) == parts else None


def _jetpack_major(matrix: Any, kind: str, version: str) -> Optional[str]:
    """The JetPack major of a named JetPack ("4.6.1" -> "4") or of an L4T release, by the matrix's [[jetpack]] rows
    (R32.6.1 -> "4"): every row of that L4T major must name the same JetPack major, else None."""
    if kind == "jetpack":
        return version.split(".", 1)[0]
    t = version_tuple(version)
    if t is None or matrix is None:
        return None
    majors = {str(r.get("version", "")).split(".", 1)[0] for r in matrix.rows("jetson", "jetpack")
              if (version_tuple(str(r.get("l4t", ""))) or (0,))[0] == t[0]}
    return majors.pop() if len(majors) == 1 else None


_INSTALLED_KEY = "framework-installed-python-"


def _pythons(facts: Dict[str, Any], lines: Dict[str, str]) -> List[Tuple[str, str]]:
    """(X.Y, the line) of every Python the text names, and the report's own."""
    out = [(k[len(_PY_KEY):], v) for k, v in lines.items() if k.startswith(_PY_KEY)]
    py = facts.get("python") if isinstance(facts.get("python"), dict) else {}
    have = str((py or {}).get("version") or "")
    if have.count(".") >= 1:
        out.append((".".join(have.split(".")[:2]), f"Python {have}"))
    return out


def jetpack_python(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str]) -> Optional[Finding]:
    """``python-unsupported`` where the text's JetPack has wheels for one Python and the text names a newer one: see
    the module's docstring."""
    got = _split(lines.get("jetpack-named"), 2)
    if got is None or matrix is None or "|" not in got[0] or lines.get("torch-pip") and not lines.get("torch-index"):
        # a torch pip fetched from PyPI is no NVIDIA wheel: on the board it is PyPI's aarch64 build, whose CUDA is what
        # the text then shows missing (dusty-nv/jetson-inference#1932: "pip3 install torch ..." then cuda false)
        return None
    kind, version = got[0].split("|", 1)
    major = _jetpack_major(matrix, kind, version)
    rows = matrix.rows("jetson", "wheel_python")
    row = next((r for r in rows if str(r.get("jetpack")) == major), None)
    if row is None:
        return None
    wheel = str(row.get("python"))
    wt = version_tuple(wheel)
    # a framework installed under that Python (its site-packages path) shows a build for it exists: no claim there
    installed = {k[len(_INSTALLED_KEY):] for k in lines if k.startswith(_INSTALLED_KEY)}
    # the oldest newer Python, the first line naming it (dict.fromkeys keeps the text's order: a set's order changed
    # from run to run with the hash seed, and with it the line quoted)
    newer = sorted(dict.fromkeys((version_tuple(p), p, line) for p, line in _pythons(facts, lines)
                                 if wt is not None and (version_tuple(p) or (0,)) > wt and p not in installed),
                   key=lambda x: x[0] or (0,))
    if not newer:
        return None
    _, want, line = newer[0]
    fits = [str(r.get("jetpack")) for r in rows if str(r.get("python")) == want]
    named = f"JetPack {version}" if kind == "jetpack" else f"L4T R{version} (JetPack {major})"
    return Finding("python-unsupported", Severity.WARNING,
                   f"The text is on {named}, whose framework wheels from NVIDIA are built for Python {wheel} only "
                   f"({row.get('framework', 'torch')} for JetPack {major}: cp{wheel.replace('.', '')}), and it names "
                   f"Python {want} (\"{line[:120]}\"): pip refuses those wheels on Python {want} (\"is not a supported "
                   "wheel on this platform\"), and no NVIDIA build exists for that Python on this JetPack.",
                   f"Use the JetPack's own Python {wheel} for the framework (its python3 and pip3), or move to a JetPack "
                   + (f"whose wheels are built for Python {want} (JetPack {', '.join(fits)}) " if fits else
                      f"release with wheels for Python {want} ")
                   + f"if the board supports it, or build the framework from source for Python {want} on the board.",
                   line[:200], "python")


def ort_jetson_release(lines: Dict[str, str]) -> Optional[Finding]:
    """``framework-cpu-only`` for ONNX Runtime's released package with a GPU provider wanted on a Jetson: see the
    module's docstring."""
    released, wanted, board = lines.get("ort-released"), lines.get("ort-gpu-wanted"), lines.get("jetson-named")
    if not (released and wanted and board) or lines.get("ort-from-source") or lines.get("jetson-build-named"):
        return None
    return Finding("framework-cpu-only", Severity.WARNING,
                   f"ONNX Runtime is one of Microsoft's released packages (\"{released[:60]}\") on a Jetson "
                   f"(\"{board[:100]}\"), with the {wanted[:40]} provider wanted: the released packages (PyPI's "
                   "onnxruntime / onnxruntime-gpu, the aarch64 release archives) hold no CUDA build for a Jetson, so "
                   "the one installed runs on the CPU only.",
                   "Install NVIDIA's onnxruntime-gpu wheel for the board's JetPack and Python (the Jetson Zoo; the "
                   "jetson-ai-lab index for JetPack 6), use an l4t container that has it, or build ONNX Runtime on the "
                   "board with CUDA / TensorRT enabled (ONNX Runtime's build page, NVIDIA Jetson).",
                   released[:200], "onnxruntime")


def _line_of(matrix: Any, kind: str, version: str) -> Optional[str]:
    """The JetPack major of an L4T release or of a JetPack release ("jetpack" kind), by the matrix's rows."""
    return version.split(".", 1)[0] if kind == "jetpack" else _jetpack_major(matrix, "l4t", version)


_IMAGE_KEY = "l4t-image-"
_NOT_IMAGE = ("l4t-image-fails", "l4t-image-lib-missing")


def _image_line(matrix: Any, lines: Dict[str, str], hline: str) -> Optional[Tuple[str, str, str, str]]:
    """(kind, release, line, its JetPack major) of the first image the text names whose JetPack line is not ``hline``."""
    for key in sorted(k for k in lines if k.startswith(_IMAGE_KEY) and k not in _NOT_IMAGE):
        got = _split(lines.get(key), 2)
        if got is None or "|" not in got[0]:
            continue
        kind, ver = got[0].split("|", 1)
        iline = _line_of(matrix, kind, ver)
        if iline is not None and iline != hline:
            return kind, ver, got[1], iline
    return None


def _lib_cause(matrix: Any, lines: Dict[str, str]) -> Tuple[str, Optional[str]]:
    """(the cause, the library): a CUDA / cuDNN library the loader could not open is that library's cause (errors.toml's
    ``[[library]]`` rows), else ``driver-too-old``."""
    from envcheck.engine.vendors import library_cause

    lib = _split(lines.get("l4t-image-lib-missing"), 2)
    cause = library_cause(matrix, lib[0]) if lib else None
    if lib and cause in ("cuda-runtime-missing", "cudnn-missing"):
        return str(cause), lib[0]
    return "driver-too-old", None


def container_l4t(matrix: Any, lines: Dict[str, str], failed: bool) -> Optional[Finding]:
    """``driver-too-old`` (or the cause of the library that does not load) for a Jetson container image of another
    JetPack line than the host's: see the module's docstring."""
    host = _split(lines.get("l4t-host"), 2)
    if host is None or matrix is None or "|" not in host[0] or not (failed or lines.get("l4t-image-fails")):
        return None
    hkind, hver = host[0].split("|", 1)
    hline = _line_of(matrix, hkind, hver)
    # the host's own line naming releases of two JetPack lines ("-- L4T_VERSION=32.7.6  JETPACK_VERSION=5.1", an
    # autotag that lacks the release, dusty-nv/jetson-containers#875): the board's line is not known (attack50)
    said = {_line_of(matrix, *v.split(" | ", 1)[0].split("|", 1)) for k, v in lines.items()
            if k.startswith("l4t-hosts-") and "|" in v.split(" | ", 1)[0] and v.split(" | ", 1)[-1] == host[1]}
    if len(said - {None}) > 1:
        return None
    image = _image_line(matrix, lines, hline) if hline is not None else None
    if image is None or hline is None:
        return None
    kind, ver, line, iline = image
    if kind == "l4t" and f"l4t-hosts-l4t-{ver.split('.', 1)[0]}" in lines:
        # the image's own L4T line is also named as a board's release ("JetPack 4.6.1 (L4T R32.7.1)" over its tags in a
        # docs list, akihitron/dm's compute/src/README.md): which release the image ran on is not known (attack50)
        return None
    cause, lib = _lib_cause(matrix, lines)
    named = f"L4T R{ver}" if kind == "l4t" else f"JetPack {ver}"
    hnamed = f"L4T R{hver}" if hkind == "l4t" else f"JetPack {hver}"
    tag = f"an L4T R{hver.split('.', 1)[0]} tag" if hkind == "l4t" else f"a tag for JetPack {hline}"
    older = "older" if int(iline) < int(hline) else "newer"
    return Finding(cause, Severity.ERROR,
                   (f"{lib} does not load in the container. " if lib else "")
                   + f"The container image (\"{line[:120]}\") is built for {named} (JetPack {iline}), but the Jetson "
                   f"it runs on has {hnamed} (JetPack {hline}): NVIDIA's L4T images run only on the L4T line they were "
                   f"built for, and this image is for an {older} one, so the GPU's driver and CUDA mounted from the "
                   "host are not the release the image's software needs (CUDA fails to initialise, its libraries do "
                   "not load, or the container does not start).",
                   f"Use an image built for the host's release ({tag}: jetson-containers' autotag picks one for the "
                   f"running L4T), rebuild the image on the host, or flash the Jetson with the JetPack {iline} release "
                   "the image needs.",
                   line[:200], "driver")


#: TensorRT's libraries: no [[library]] row routes them (their N is TensorRT's major); errors.toml's TensorRT loader
#: signature names them cuda-runtime-missing, as the acceptance sets label them
_TRT_LIB = re.compile(r"(?i)^lib(?:nvinfer|nvonnxparser|nvparsers)")
_EMPTY_KEY = "lib-empty:"


def _empty_libs(matrix: Any, lines: Dict[str, str]) -> List[Tuple[str, str, str]]:
    """(cause, library, line) of every CUDA-stack library the text shows empty, cuDNN's first."""
    out = []
    for key in sorted(k for k in lines if k.startswith(_EMPTY_KEY)):
        got = _split(lines.get(key), 2)
        if got is None:
            continue
        from envcheck.engine.vendors import library_cause

        cause = "cuda-runtime-missing" if _TRT_LIB.match(got[0]) else library_cause(matrix, got[0]) if matrix else None
        if cause in ("cudnn-missing", "cuda-runtime-missing"):
            out.append((str(cause), got[0], got[1]))
    return sorted(out, key=lambda t: t[0] != "cudnn-missing")


def _jetson_text(lines: Dict[str, str], line: str = "") -> Optional[str]:
    """The line that shows the text is a Jetson's: a board, L4T or JetPack named, an L4T image, an aarch64 library."""
    image = next((v for k, v in sorted(lines.items()) if k.startswith(_IMAGE_KEY) and k not in _NOT_IMAGE), None)
    return (lines.get("jetson-named") or (image.split(" | ", 1)[-1] if image else None)
            or (line if "aarch64-linux-gnu" in line or "/tegra/" in line else None))


_MOUNT_FIX = ("On a Jetson with JetPack 4 (L4T R32) the CUDA, cuDNN and TensorRT an l4t-based image uses are the "
              "host's: NVIDIA's container runtime mounts them into the container from the CSV files under "
              "/etc/nvidia-container-runtime/host-files-for-container.d (cuda.csv, cudnn.csv, tensorrt.csv, l4t.csv), "
              "and the image holds only empty files in their place. Start the container with the runtime (docker run "
              "--runtime nvidia), or set \"default-runtime\": \"nvidia\" in /etc/docker/daemon.json and restart Docker "
              "so that docker build and docker compose get it too. On the host, the JetPack's container packages "
              "(nvidia-container-runtime / nvidia-container-toolkit with the CSV files: the NVIDIA Container Runtime "
              "component of SDK Manager, or the nvidia-jetpack apt packages) and the libraries themselves (CUDA, cuDNN, "
              "TensorRT of the JetPack) must be installed: the runtime mounts only what the host has. Use an image whose "
              "rNN.N tag is the host's L4T release (cat /etc/nv_tegra_release).")
_EMPTY_FIX = ("The library file is empty (0 bytes): a broken or interrupted copy or install. Install the library again "
              "(the cuDNN / CUDA / TensorRT package it belongs to, or copy its files again), and check that the path the "
              "loader finds is the full file (ls -l, ldconfig -p).")


def container_mounts(matrix: Any, lines: Dict[str, str]) -> Optional[Finding]:
    """(jetctr41) ``cudnn-missing`` / ``cuda-runtime-missing`` for the CUDA-stack libraries a text shows empty or says
    lacking in a Jetson container (:mod:`envcheck.paste.readers.jetson_mounts`). On a Jetson the empty files are an
    l4t image's placeholders the NVIDIA container runtime did not mount the host's libraries over: no --runtime nvidia,
    Docker's default runtime not nvidia at a build, the host's CSV files or libraries missing (dusty-nv/jetson-inference
    #1061, #1733; NVIDIA/nvidia-docker#1775; NVIDIA-ISAAC-ROS/isaac_ros_dnn_inference#17). Off a Jetson an empty
    CUDA-stack library is a broken copy (microsoft/CNTK#2213: "libcudnn.so.6: file too short", fixed by copying the cuDNN
    files again): the same cause, another fix. A sentence saying the image or container lacks cuDNN or the CUDA
    libraries counts only in a Jetson text that names a container (dusty-nv/jetson-containers#10,
    idavis/jetson-containers#25, NVIDIA/nvidia-container-runtime#173): a desktop image lacking cuDNN is that image's."""
    empty = _empty_libs(matrix, lines)
    if empty:
        cause, lib, line = empty[0]
        jetson = _jetson_text(lines, line) if lines.get("container-named") else None
        if jetson is None:
            return Finding(cause, Severity.ERROR,
                           f"{lib} is an empty file (\"{line[:120]}\"): the loader cannot use it, so the "
                           + ("cuDNN" if cause == "cudnn-missing" else "CUDA / TensorRT") + " library is missing.",
                           _EMPTY_FIX, line[:200], "cudnn" if cause == "cudnn-missing" else "toolkit")
        return Finding(cause, Severity.ERROR,
                       f"{lib} is an empty file in the container (\"{line[:120]}\") on a Jetson ("
                       + ("its aarch64 library path" if jetson == line else f"\"{jetson[:80]}\"") + "): "
                       "the l4t image's placeholder for the host's library, which NVIDIA's container runtime did not "
                       "mount over it, so the " + ("cuDNN" if cause == "cudnn-missing" else "CUDA / TensorRT")
                       + " the container needs is missing there.",
                       _MOUNT_FIX, line[:200], "cudnn" if cause == "cudnn-missing" else "toolkit")
    said_cudnn, said_cuda = lines.get("lib-lacking-said-cudnn"), lines.get("lib-lacking-said-cuda")
    jetson = _jetson_text(lines)
    if jetson is None or not lines.get("container-named"):
        return None
    named = _split(lines.get("jetpack-named"), 2)
    line_major = _line_of(matrix, *named[0].split("|", 1)) if named and "|" in named[0] and matrix else None
    if line_major is not None and line_major.isdigit() and int(line_major) >= 6:
        # JetPack 6 and later: the images carry their own CUDA user-space libraries, the runtime mounts the driver's
        # only (a CUDA 12 wheel on JetPack 7's CUDA 13, wendylabsinc/WendyOS#1379, is not a missing mount)
        return None
    failed = _split(lines.get("l4t-image-lib-missing"), 2)
    if failed is not None:
        from envcheck.engine.vendors import library_cause

        lcause: Optional[str] = ("cuda-runtime-missing" if _TRT_LIB.match(failed[0]) else
                                 library_cause(matrix, failed[0]) if matrix else None)
        if lcause in ("cudnn-missing", "cuda-runtime-missing"):
            return Finding(str(lcause), Severity.ERROR,
                           f"{failed[0]} does not load in a container on a Jetson (\"{jetson[:80]}\"): an l4t image's "
                           "CUDA, cuDNN and TensorRT are the host's, mounted by NVIDIA's container runtime, and a "
                           "container started without it (or on a host without them) does not have them.",
                           _MOUNT_FIX, failed[1][:200], "cudnn" if lcause == "cudnn-missing" else "toolkit")
    if not (said_cudnn or said_cuda):
        return None
    cause = "cudnn-missing" if said_cudnn else "cuda-runtime-missing"
    said = str(said_cudnn or said_cuda)
    return Finding(cause, Severity.ERROR,
                   "The text says the container lacks " + ("cuDNN" if said_cudnn else "the CUDA / TensorRT libraries")
                   + f" (\"{said[:120]}\") on a Jetson (\"{jetson[:80]}\"): on JetPack 4 an l4t image does not hold "
                   "them, NVIDIA's container runtime mounts the host's into it.",
                   _MOUNT_FIX, said[:200], "cudnn" if said_cudnn else "toolkit")


_DRIVER_EMPTY_KEY = "driver-lib-empty:"
_DRIVER_FIX = ("The driver's user-space libraries in a container are the host's: NVIDIA's container runtime mounts them "
               "over the image's placeholders when the container starts with GPU access (docker run --gpus all with the "
               "NVIDIA Container Toolkit on the host; on a Jetson, docker run --runtime nvidia, or \"default-runtime\": "
               "\"nvidia\" in /etc/docker/daemon.json so that docker build and docker compose get it too). Start the "
               "container that way. An image saved (docker commit) from a container that had GPU access keeps the empty "
               "files: rebuild it from its Dockerfile, or delete the empty libcuda.so.1 in it so the runtime can mount "
               "the host's. On a Jetson the host must have the JetPack's container packages and the L4T release the "
               "image was built for (cat /etc/nv_tegra_release).")


def driver_placeholders(matrix: Any, lines: Dict[str, str]) -> Optional[Finding]:
    """(jetson42) ``no-gpu-driver`` where a text shows a driver-side library empty
    (:mod:`envcheck.paste.readers.jetson_mounts` ``driver-lib-empty``): the driver's libcuda.so.1, a library of L4T's
    driver under /tegra/, L4T's NVIDIA GStreamer plugins. Those files in an image are placeholders NVIDIA's container
    runtime mounts the host driver's libraries over; empty, the container was started without GPU access (plain docker
    run: Thinklab-SJTU/R3Det_Tensorflow#78, "use nvidia-docker"; a Jetson container without --runtime nvidia:
    dusty-nv/jetson-containers#253, #625) or the image was saved with the empty files (warmshao/FasterLivePortrait#9,
    #37, fixed by linking libcuda.so.1 to the host driver's library), so no driver library is loadable in it. Where the
    loader's own line shows a CUDA-stack library failing ("ImportError: libcublas.so.10: cannot open shared object
    file" above a docker build's ldconfig list of empty tegra/ files, dusty-nv/jetson-containers#235), that library is
    what failed: its own cause is the finding, not this one."""
    keys = sorted(k for k in lines if k.startswith(_DRIVER_EMPTY_KEY))
    if not keys:
        return None
    failed = _split(lines.get("l4t-image-lib-missing"), 2)
    if failed is not None:
        from envcheck.engine.vendors import library_cause

        if _TRT_LIB.match(failed[0]) or (matrix and library_cause(matrix, failed[0]) in (
                "cudnn-missing", "cuda-runtime-missing")):
            return None
    # the driver's libcuda first: it is what CUDA loads; an L4T library names the Jetson side of the same cause
    key = next((k for k in keys if k[len(_DRIVER_EMPTY_KEY):].startswith("libcuda")), keys[0])
    got = _split(lines.get(key), 2)
    if got is None:
        return None
    path, line = got
    jetson = "/tegra/" in path or "libgstnv" in path or "aarch64" in path
    return Finding("no-gpu-driver", Severity.ERROR,
                   f"{path} is an empty file (\"{line[:120]}\"): "
                   + ("an L4T driver library of the Jetson host" if jetson else "the NVIDIA driver's library")
                   + " that NVIDIA's container runtime mounts over the image's empty placeholder was not mounted, so "
                   "no driver library is loadable there (the container was started without GPU access, or the image "
                   "was saved with the placeholder).",
                   _DRIVER_FIX, line[:200], "driver")


#: a desktop / data-centre NVIDIA GPU's name (no Jetson's: a Jetson's GPU is "NVIDIA Tegra X1", "Orin (nvgpu)") (attack51)
_DESKTOP_GPU = re.compile(r"(?i)(?<![\w-])(?:RTX|GTX|GeForce|Quadro|Tesla|TITAN)(?![\w-])|(?<![\w-])[AHL]\d{2,3}(?![\w-])")


def jetson_memory(lines: Dict[str, str], facts: Optional[Dict[str, Any]] = None) -> Optional[Finding]:
    """(jetmem39) ``gpu-out-of-memory`` on a Jetson the text names (``jetson-named``): a Jetson's GPU has no memory of
    its own and allocates from the board's RAM, so a TensorRT engine build, an INT8 calibration or an inference that
    runs out of it fails in the words of the host's allocator or crashes. Evidence
    (:mod:`envcheck.paste.readers.jetson_mem`): TensorRT's own failed allocation (``trt-alloc-failed``: "FAILED_ALLOCATION:
    std::bad_alloc", "Unexpected exception std::bad_alloc"; open-mmlab/mmdeploy#641, enazoe/yolo-tensorrt#61); C++'s
    uncaught std::bad_alloc where an engine is being built or calibrated (``bad-alloc-thrown`` with
    ``engine-build-shown``); a sentence saying the memory or RAM ran short (``jetson-memory-said``:
    WisconsinAIVision/yolact_edge#88's "not enough memory on the device" before its INT8 calibration segfaults); a crash
    beside the thread's way of using less memory (``crash-shown`` with ``memory-fix-said``: fewer calibration images, a
    smaller workspace, more swap, other programs closed). On a desktop the same words are the host's RAM or a bug: not
    read (the text must name the Jetson); nor where a compiler or a source build is at work and no engine build is
    shown (``compile-shown``, ``build-killed``: the compiler's RAM)."""
    jetson = lines.get("jetson-named")
    if not jetson:
        return None
    if _DESKTOP_GPU.search(lines.get("gpu-prose") or "") or any(
            _DESKTOP_GPU.search(str(g.get("name") or "")) for g in (facts or {}).get("gpus") or [] if isinstance(g, dict)):
        # (attack51) a desktop GPU named too ("I build the engine on my desktop (RTX 3080) and later deploy on a Jetson
        # Xavier NX"): which machine's memory ran out is not known, and a desktop's is its own GPU's or the host's
        return None
    if (lines.get("compile-shown") or lines.get("build-killed")) and not (
            lines.get("trt-alloc-failed") or lines.get("engine-build-shown")):
        return None  # a compiler's memory (the host's RAM), no GPU allocation: attack47's cc1plus on a Jetson
    said = (lines.get("trt-alloc-failed")
            or (lines.get("bad-alloc-thrown") if lines.get("engine-build-shown") else None)
            or lines.get("jetson-memory-said")
            or (lines.get("memory-fix-said") if lines.get("crash-shown") else None))
    if not said:
        return None
    return Finding("gpu-out-of-memory", Severity.ERROR,
                   f"The Jetson (\"{jetson[:80]}\") ran out of the memory its GPU shares with the CPU "
                   f"(\"{said[:120]}\"): a Jetson's GPU has no memory of its own, so a TensorRT engine build, an INT8 "
                   "calibration or a model at inference allocates from the board's RAM, and when that is used up the "
                   "allocation fails (std::bad_alloc, FAILED_ALLOCATION) or the process crashes or is killed.",
                   "Use less of the board's memory: stop the desktop and other programs, watch the free memory with "
                   "tegrastats or jtop while it runs, build the engine with a smaller workspace (trtexec's memPoolSize, "
                   "IBuilderConfig's workspace limit) or in FP16, calibrate INT8 with fewer images or a smaller batch, use "
                   "a smaller model or input size, and mount swap for the CPU side (GPU allocations cannot be swapped "
                   "out).",
                   said[:200], "gpu")


def findings(matrix: Any, facts: Dict[str, Any], lines: Dict[str, str], failed: bool = False) -> List[Finding]:
    """Every finding of this module for one text (``failed``: the text shows a GPU failure)."""
    out = [ort_jetson_release(lines), jetpack_python(matrix, facts, lines), container_l4t(matrix, lines, failed),
           jetson_memory(lines, facts)]
    if out[2] is None:  # an image of another L4T line than the host's is jetson38's cause (container_l4t)
        out.append(container_mounts(matrix, lines))
        if out[-1] is None:  # a CUDA-stack library empty is that library's cause (container_mounts)
            out.append(driver_placeholders(matrix, lines))
    return [f for f in out if f is not None]
