"""Terminal text for `trainwreck explain`: commands read as they would be typed."""

from __future__ import annotations

from generator.report import _at_prompt


def test_each_command_gets_a_prompt():
    assert _at_prompt("pip uninstall -y tb-nightly\npip install tensorboard\n") == [
        "     $ pip uninstall -y tb-nightly",
        "     $ pip install tensorboard",
    ]


def test_a_here_document_and_a_continued_line_get_no_prompt():
    command = (
        "python - <<'EOF'\nimport torch\nprint(torch.__version__)\nEOF\ndocker run --gpus all \\\n  image nvidia-smi"
    )
    assert _at_prompt(command) == [
        "     $ python - <<'EOF'",
        "       import torch",
        "       print(torch.__version__)",
        "       EOF",
        "     $ docker run --gpus all \\",
        "         image nvidia-smi",
    ]


def test_a_shift_is_not_a_here_document():
    assert _at_prompt('python -c "print(1 << 2)"\nnvidia-smi') == [
        '     $ python -c "print(1 << 2)"',
        "     $ nvidia-smi",
    ]
