# A small image for the fleet DaemonSet and CronJob (examples/kubernetes/daemonset-reports.yaml):
# only Python and envcheck (the node's driver and GPUs come from the NVIDIA container runtime, and a
# node check reads no training framework). Built from an envcheck checkout's root:
#   docker build -f examples/docker/fleet.Dockerfile -t envcheck-fleet:0.1.0 .
#   docker run --rm envcheck-fleet:0.1.0 status        # on a GPU node: --runtime=nvidia --gpus all
# The first stage builds envcheck's wheel from the source (envcheck is on no package index yet); the
# image gets the wheel only.
ARG PYTHON=python:3.12-slim
FROM ${PYTHON} AS wheel
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY envcheck envcheck
COPY compat_matrix compat_matrix
RUN python -m pip wheel --no-cache-dir --disable-pip-version-check --no-deps --wheel-dir /dist .

FROM ${PYTHON}
COPY --from=wheel /dist/ /tmp/dist/
RUN python -m pip install --no-cache-dir --disable-pip-version-check /tmp/dist/envcheck_gpu-*.whl \
    && rm -rf /tmp/dist \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin envcheck \
    && envcheck --version
# reports go to a mounted volume; nothing runs as root
USER 10001
ENV NO_COLOR=1
ENTRYPOINT ["envcheck"]
CMD ["status"]
