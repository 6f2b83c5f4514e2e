"""envcheck: read a machine's NVIDIA driver, GPUs, CUDA toolkit, cuDNN copies and framework
builds, check that they fit together, and say how to fix what does not."""

__version__ = "0.1.0"
