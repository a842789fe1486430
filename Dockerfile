# ctxlint in a container: `docker build -t ctxlint .` then
# `docker run --rm -v "$PWD:/work" ctxlint check deploy/` (see the README's "Docker").
# The slim Python base keeps the image small; ctxlint runs as an unprivileged user, and the
# checked files are mounted at /work, its working directory.
FROM python:3.12-slim

# Only what the package is built from (pyproject's readme is README.md); .dockerignore keeps the rest out.
COPY pyproject.toml README.md /tmp/ctxlint/
COPY lint /tmp/ctxlint/lint
COPY rules /tmp/ctxlint/rules
RUN python -m pip install --no-cache-dir --disable-pip-version-check /tmp/ctxlint \
    && rm -rf /tmp/ctxlint \
    && useradd --create-home --uid 10001 ctxlint

USER 10001
WORKDIR /work
ENTRYPOINT ["ctxlint"]
CMD ["check", "."]
