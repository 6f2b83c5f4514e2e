"""Forms the lead added on 2026-11-27 after scoring the fifth blind set (heldout/acceptance5 on branch eval5; its
texts are not copied here): the kernel module's own wording of the driver/library mismatch, and HSA's own status
name of a GPU memory fault. Each is keyed on the emitting source's literal text, so every version's line matches:

* NVIDIA's kernel module prints (nv.c, ``nv_printf``) "NVRM: API mismatch: the client has the version X, but / NVRM:
  this kernel module has the version Y.  Please / NVRM: make sure that this kernel module and all NVIDIA driver /
  NVRM: components have the same version." since its 2008 drivers; the 5xx drivers name the client ("the client
  'kwin_wayland' (pid 1005)" then "has the version ..." on the next line); syslog writes the breaks as ``#012``.
* ROCR's ``hsa_status_string`` gives "HSA_STATUS_ERROR_MEMORY_FAULT: Agent attempted to access an inaccessible
  address." (code 0x2b), which HIP's rocdevice.cpp prints as "Device::callbackQueue aborting with error : ..."."""

import pytest

from envcheck.explain import explain_text

#: the dmesg lines of a 2009 Ubuntu kernel update, as posted (thebino/stuermer-benjamin.de, _posts/2009-09-08-ubuntu-
#: nvidia-api-mismatch.markdown at 30666e0350ccacd4d1b702e383019f3593687156)
UBUNTU_2009 = """[ 39.753267] NVRM: API mismatch: the client has the version 260.19.44, but
[ 39.753268] NVRM: this kernel module has the version 260.19.06. Please
[ 39.753269] NVRM: make sure that this kernel module and all NVIDIA driver
[ 39.753270] NVRM: components have the same version.
"""


def _top(text):
    ms = explain_text(text)
    return (ms[0].id, ms[0].captures) if ms else None


def test_the_kernel_modules_own_wording_is_the_driver_library_mismatch_with_the_client_version():
    cause, caps = _top(UBUNTU_2009)
    assert cause == "driver-library-mismatch"
    assert caps.get("dso_version") == "260.19.44"


@pytest.mark.parametrize("text,dso,kernel", [
    # syslog's escaped breaks: one line holds both versions (built from the module's format and the versions above)
    ("Jun 30 11:07:05 gpu-0 kernel: NVRM: API mismatch: the client has the version 260.19.44, but#012NVRM: this "
     "kernel module has the version 260.19.06.  Please#012NVRM: make sure that this kernel module and all NVIDIA "
     "driver#012NVRM: components have the same version.", "260.19.44", "260.19.06"),
    # the 5xx drivers' form naming the client, its versions on the continuation lines
    ("[    9.424670] NVRM: API mismatch: the client 'kwin_wayland' (pid 1005)\n"
     "               NVRM: has the version 595.84, but this kernel module has\n"
     "               NVRM: the version 595.80.  Please make sure that this\n", None, None),
    ("NVRM: API mismatch: the client 'gnome-shell' has the version 595.58.03,\n"
     "NVRM: but this kernel module has the version 595.91.07\n", "595.58.03", None),
])
def test_every_form_of_it_is_read_and_its_versions_only_where_the_line_holds_them(text, dso, kernel):
    cause, caps = _top(text)
    assert cause == "driver-library-mismatch"
    assert caps.get("dso_version") == dso and caps.get("kernel_version") == kernel


def test_the_module_loading_line_alone_says_nothing():
    assert _top("[    1.151236] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  390.129  Mon Jul 22 21:10:21 PDT 2019"
                " (using threaded interrupts)\n") is None


@pytest.mark.parametrize("text", [
    ":0:rocdevice.cpp            :2614: 281102691423 us: 54282: [tid:0x7ff1f9c47700] Device::callbackQueue aborting "
    "with error : HSA_STATUS_ERROR_MEMORY_FAULT: Agent attempted to access an inaccessible address. code: 0x2b\n"
    "Aborted\n",
    "HSA_STATUS_ERROR_MEMORY_FAULT: Agent attempted to access an inaccessible address.\n",
])
def test_hsas_memory_fault_status_is_the_gpu_memory_fault(text):
    assert _top(text)[0] == "gpu-memory-fault"


# --- captures cut short: a rocminfo fragment that starts below the agent's Name, an xpu-smi JSON cut inside its list

import os  # noqa: E402

from envcheck.parse.intel import parse_xpu_smi  # noqa: E402
from envcheck.parse.rocminfo import parse_rocminfo  # noqa: E402

VENDORS = os.path.join(os.path.dirname(__file__), "data", "vendors")


def _lines(*parts):
    with open(os.path.join(VENDORS, *parts), encoding="utf-8") as fh:
        return fh.read().splitlines(keepends=True)


def test_a_rocminfo_fragment_starting_at_the_device_type_names_its_gpu_by_chip_id():
    lines = _lines("rocminfo", "gfx1032-w6600-agent2-legacy1756.txt")  # real (see tests/data/README.md)
    at = next(i for i, ln in enumerate(lines) if ln.startswith("  Device Type:") and "GPU" in ln)
    gpus = parse_rocminfo("".join(lines[at:])).gpus
    assert [(g.vendor, g.device_id, g.gfx) for g in gpus] == [("amd", "0x73e3", None)]
    # a fragment of a CPU agent names no GPU
    cpu = _lines("rocminfo", "cpu-only-5900hx-radeon-graphics-rocthrust514.txt")
    at = next(i for i, ln in enumerate(cpu) if ln.startswith("  Device Type:"))
    assert parse_rocminfo("".join(cpu[at:])).gpus == []


def test_an_xpu_smi_json_cut_inside_its_device_list_keeps_the_devices_it_holds():
    text = "".join(_lines("xpu-smi", "v21j-xpumcli-windows-discovery-json-flex170-56c0.txt"))
    whole = parse_xpu_smi(text)
    assert whole
    for cut in range(text.index('"device_list"') + 20, len(text), 7):
        got = parse_xpu_smi(text[:cut])
        # never a device the whole text lacks, never a name or id it does not give; a device cut before its name
        # and id is not counted
        assert len(got) <= len(whole)
        for g, w in zip(got, whole):
            assert g.name in (None, w.name) or (w.name or "").startswith(g.name or "")
            assert g.device_id in (None, w.device_id)
    assert [(g.name, g.device_id) for g in parse_xpu_smi(text[:text.rindex("}") - 1])][:len(whole)] == \
        [(w.name, w.device_id) for w in whole]
