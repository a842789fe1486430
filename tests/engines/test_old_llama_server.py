"""llama.cpp's server before the `llama-` prefix (ggml-org/llama.cpp#7809): `server` is it only where that is
certain, in a `llama.cpp` folder or given a GGUF model (detect._old_llama_server)."""
from __future__ import annotations

import pytest

from ctxlint.engines.detect import detect


@pytest.mark.parametrize("line", [
    "/opt/llama.cpp/server -m /models/m.gguf -c 4096",
    "llama.cpp/build/bin/server --model /models/m.bin -c 4096",
    "./server -m models/llama-2-7b-chat.Q4_K_M.gguf -c 1024 -ngl 35",
    "server --model=models/x.GGUF --port 8080",
])
def test_llama_cpps_old_server_is_a_launch(line):
    [found] = detect(line.split())
    assert (found.engine, found.launcher) == ("llamacpp", "llama-server")


@pytest.mark.parametrize("line", [
    "./server --port 8080",                      # any program may be called server
    "python server.py -m model.gguf",            # a Python file, not the binary
    "/srv/app/server -m /models/model.onnx",     # a model no llama.cpp server reads
    "/opt/whisper.cpp/server -m ggml-base.en.bin",
])
def test_another_server_is_not(line):
    assert detect(line.split()) == []


def test_the_old_server_in_a_script_is_a_deployment():
    from ctxlint.adapters import adapt_file
    from ctxlint.file_reader import parse_bytes

    text = "#!/bin/bash\ncd ~/llama.cpp\nnohup ./server -m models/llama-2-7b-chat.Q4_K_M.gguf -c 2048 -ngl 35 --port 8080 &\n"
    [dep] = adapt_file(parse_bytes(text.encode(), "serve.sh")).deployments
    assert dep.engine.name.value == "llamacpp"
    assert dep.model.id.value == "models/llama-2-7b-chat.Q4_K_M.gguf"
    assert dep.roles[0].context_length.value == 2048
