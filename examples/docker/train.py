"""A stand-in training script for the example image: uses the GPU when there is one."""

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.randn(64, 3, 32, 32, device=device)
conv = torch.nn.Conv2d(3, 8, 3).to(device)
print(f"ran one convolution on {device}: output {tuple(conv(x).shape)}")
