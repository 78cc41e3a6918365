"""Diagnose: the conformance cases, their meaning, and byte-identical output from the JS engine."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.diagnose import (
    Line,
    LiteralFinder,
    Matcher,
    Patterns,
    _join,
    decode_log,
    diagnose_stream,
    diagnose_text,
    fingerprints_hit,
)
from generator.fingerprints import canonical_json

HERE = Path(__file__).parent
CASES = HERE / "diagnose" / "cases"
FINGERPRINTS = HERE / "diagnose" / "fingerprints.json"
NODE_CLI = HERE / "js" / "diagnose_cli.js"
CASE_LOGS = sorted(CASES.glob("*.log"))


@pytest.fixture(scope="module")
def fingerprint_set() -> dict:
    return json.loads(FINGERPRINTS.read_text(encoding="utf-8"))


def diagnose_file(path: Path, fingerprint_set: dict) -> dict:
    return diagnose_stream([path.read_bytes()], fingerprint_set)


def node_results(fingerprints: Path, logs: list[Path]) -> list[str]:
    node = shutil.which("node")
    assert node, "node is required for the parity tests"
    result = subprocess.run([node, str(NODE_CLI), str(fingerprints), *map(str, logs)], capture_output=True, check=True)
    return result.stdout.decode("utf-8").splitlines()


def assert_node_engine_agrees(fingerprints: dict, logs: dict[str, str], tmp_path: Path) -> None:
    """The JS engine prints the Python engine's bytes for each log, given this fingerprint set."""
    (tmp_path / "fingerprints.json").write_text(canonical_json(fingerprints), encoding="utf-8")
    paths = []
    for name, text in logs.items():
        paths.append(tmp_path / f"{name}.log")
        paths[-1].write_text(text, encoding="utf-8")
    expected = [canonical_json(diagnose_text(text, fingerprints)) for text in logs.values()]
    assert node_results(tmp_path / "fingerprints.json", paths) == expected


@pytest.mark.parametrize("log", CASE_LOGS, ids=lambda path: path.stem)
def test_case_matches_expected_json(log, fingerprint_set):
    expected = log.with_suffix(".json").read_text(encoding="utf-8")
    assert canonical_json(diagnose_file(log, fingerprint_set)) + "\n" == expected, "run `make golden` and review"


def test_one_compiled_set_diagnoses_log_after_log_as_the_set_itself_does(fingerprint_set):
    """A Patterns is shared by every log it diagnoses; nothing one log leaves behind may change
    the next one's result, whichever order they come in."""
    patterns = Patterns(fingerprint_set)
    expected = [diagnose_file(path, fingerprint_set) for path in CASE_LOGS]
    assert [diagnose_file(path, patterns) for path in CASE_LOGS] == expected
    assert [diagnose_file(path, patterns) for path in reversed(CASE_LOGS)] == expected[::-1]
    assert sum(1 for result in expected if result["matches"]) >= 10


def ids(result: dict) -> list[str]:
    return [match["id"] for match in result["matches"]]


def test_case_meanings(fingerprint_set):
    result = {log.stem: diagnose_file(log, fingerprint_set) for log in CASE_LOGS}
    for name in ("ansi_colours", "utf8_bom", "utf16_le_bom", "utf16_be_no_bom", "invalid_bytes"):
        assert ids(result[name]) == ["cuda-oom"], name
    assert result["ansi_colours"]["matches"][0]["evidence"][0]["text"].startswith("torch.OutOfMemoryError")
    assert ids(result["crlf_progress"])[0] == "cuda-illegal-memory-access"
    assert result["crlf_progress"]["lines"] == 4
    cjk = result["cjk_around_error"]["matches"][0]["evidence"]
    assert cjk[0]["text"] == "错误：RuntimeError: CUDA error: an illegal memory access was encountered（第 10 步）"
    timestamps = result["timestamps"]["matches"]
    assert [item["text"] for item in timestamps[0]["evidence"]] == [
        "Step 10 finished",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    ranks = result["rank_prefixes"]
    assert [(m["id"], [item["ranks"] for item in m["evidence"]]) for m in ranks["matches"]] == [
        ("cuda-oom", [[3], [3]]),
        ("nccl-watchdog-timeout", [[4, 12]]),  # "[Rank 12]" and "[Rank 4]": one group, numbers aside
    ]
    same = result["same_traceback_ranks"]
    assert same["first_failing_rank"] == 5
    assert same["matches"][0]["evidence"][0] | {"text": ""} == {
        "fingerprint": 0, "role": "root", "line": 4, "last_line": 14, "text": "", "count": 3, "ranks": [2, 5, 7],
    }  # fmt: skip
    assert result["concatenated_rank_files"]["first_failing_rank"] == 1
    oom = result["oom_then_watchdog"]
    assert [(m["id"], m["role"]) for m in oom["matches"]] == [
        ("cuda-oom", "root"),
        ("nccl-watchdog-timeout", "symptom"),
    ]
    assert oom["matches"][1]["explained_by"] == ["cuda-oom"] and oom["first_failing_rank"] == 3
    watchdog = oom["matches"][1]["evidence"]
    assert [(item["count"], item["ranks"], item["line"], item["last_line"]) for item in watchdog] == [
        (3, [0, 1, 2], 3, 5)
    ]
    assert ids(result["generic_and_specific_one_line"]) == ["cuda-illegal-memory-access", "cuda-error-generic"]
    advice = result["advice_only"]
    assert advice["confident"] is False and advice["matches"] == []
    assert advice["unmatched_errors"] == [
        {"line": 4, "text": "RuntimeError: something unexpected happened", "count": 1}
    ]
    assert ids(result["exclude"]) == []
    assert ids(result["match_all_distant"])[0] == "cuda-illegal-memory-access"
    assert ids(result["match_all_missing_part"]) == ["cuda-error-generic"]
    assert result["empty"] == {
        "confident": False, "fingerprints": result["empty"]["fingerprints"], "first_failing_rank": None,
        "lines": 0, "matches": [], "unmatched_errors": [], "version": 1,
    }  # fmt: skip


def test_js_engine_is_byte_identical_on_cases():
    expected = [log.with_suffix(".json").read_text(encoding="utf-8").rstrip("\n") for log in CASE_LOGS]
    assert node_results(FINGERPRINTS, CASE_LOGS) == expected


def test_ten_megabyte_line_without_newline(tmp_path, fingerprint_set):
    log = tmp_path / "one-line.log"
    log.write_bytes(
        b"x" * 5_000_000 + b" RuntimeError: CUDA error: an illegal memory access was encountered " + b"y" * 5_000_000
    )
    python = canonical_json(diagnose_file(log, fingerprint_set))
    assert json.loads(python)["matches"][0]["evidence"][0]["text"].startswith("…xxx")
    assert node_results(FINGERPRINTS, [log]) == [python]


def test_shuffled_fingerprints_give_the_same_output(fingerprint_set):
    shuffled = json.loads(json.dumps(fingerprint_set))
    random.Random(7).shuffle(shuffled["entries"])
    for entry in shuffled["entries"]:
        random.Random(entry["id"]).shuffle(entry["fingerprints"])
    for log in CASE_LOGS:
        assert diagnose_file(log, shuffled) == diagnose_file(log, fingerprint_set), log.stem


def test_streaming_in_small_chunks_equals_whole(fingerprint_set):
    for log in CASE_LOGS:
        data = log.read_bytes()
        pieces = [data[i : i + 7] for i in range(0, len(data), 7)]
        assert diagnose_stream(pieces, fingerprint_set) == diagnose_file(log, fingerprint_set), log.stem


def test_overlong_lines_are_cut_in_bounded_memory():
    from generator.diagnose import MAX_LINE, split_lines

    pieces = ["a" * (MAX_LINE // 2)] * 3 + ["tail\nnext\n"]
    lines = list(split_lines(pieces))
    assert [len(line) for line in lines] == [MAX_LINE, 4]


def test_decoding_is_lenient():
    assert decode_log(b"\xef\xbb\xbfabc") == "abc"
    assert decode_log("héllo".encode("utf-16")) == "héllo"
    assert decode_log(b"a\xffb\xe2\x82c") == "a\ufffdb\ufffdc"


def test_text_entry_point(fingerprint_set):
    result = diagnose_text(
        "Step 10 finished\nRuntimeError: CUDA error: an illegal memory access was encountered", fingerprint_set
    )
    assert ids(result) == ["cuda-illegal-memory-access", "cuda-error-generic"]


def lines_by_scanning(lines: list[str], literals: list[str]) -> dict[str, list[int]]:
    """What stage 1 must find, the slow and obvious way."""
    found = {literal: [index for index, line in enumerate(lines) if literal in line] for literal in literals}
    return {literal: indexes for literal, indexes in found.items() if indexes}


# Few letters, so that literals overlap, repeat and sit inside one another. Three are not ASCII
# (one not even in the BMP): match positions must count code points, as Python's do.
ALPHABET = "abc :é漢😀"
LINE_TEXT = st.text(alphabet=ALPHABET, max_size=30)


@given(st.lists(LINE_TEXT, min_size=1, max_size=20), st.lists(st.text(alphabet=ALPHABET, max_size=4), max_size=8))
def test_one_pass_finds_the_lines_of_every_literal(lines, literals):
    joined, starts = _join([Line(number, line, None, "~") for number, line in enumerate(lines, 1)])
    assert LiteralFinder(literals).lines(joined, starts) == lines_by_scanning(lines, literals)


def test_a_symptom_without_its_cause_line_is_a_candidate_that_explains_nothing(fingerprint_set, tmp_path):
    """A pasted tail holds the cascade line but not the cause printed above it."""
    fingerprints = json.loads(json.dumps(fingerprint_set))
    illegal = next(entry for entry in fingerprints["entries"] if entry["id"] == "cuda-illegal-memory-access")
    illegal["match"], illegal["explains"] = "any", ["cuda-error-generic"]
    tail = diagnose_text("Step 10 finished\nRuntimeError: CUDA error: unknown error\n", fingerprints)
    assert [(match["id"], match["role"], match["explained_by"]) for match in tail["matches"]] == [
        ("cuda-error-generic", "root", []),
        ("cuda-illegal-memory-access", "symptom", []),
    ]
    assert tail["confident"]
    only = diagnose_text("Step 10 finished\n", fingerprints)
    assert not only["confident"]
    assert [(match["id"], match["role"]) for match in only["matches"]] == [("cuda-illegal-memory-access", "symptom")]
    assert only["matches"][0]["score"]["first_line"] == 1
    whole = diagnose_text(
        "Step 10 finished\nRuntimeError: CUDA error: an illegal memory access was encountered\n", fingerprints
    )
    assert [(match["id"], match["role"]) for match in whole["matches"]] == [
        ("cuda-illegal-memory-access", "root"),
        ("cuda-error-generic", "symptom"),
    ]

    logs = {"tail": "Step 10 finished\nRuntimeError: CUDA error: unknown error\n", "only": "Step 10 finished\n"}
    assert_node_engine_agrees(fingerprints, logs, tmp_path)


def test_a_candidate_is_dropped_when_its_lines_are_explained_by_a_cause_in_the_log(fingerprint_set, tmp_path):
    """The OOM explains the watchdog line; the same line as another entry's symptom is no hint."""
    fingerprints = json.loads(json.dumps(fingerprint_set))
    entries = {entry["id"]: entry for entry in fingerprints["entries"]}
    entries["cuda-illegal-memory-access"]["match"] = "any"
    step = entries["cuda-illegal-memory-access"]["fingerprints"][1]
    watchdog = entries["nccl-watchdog-timeout"]
    watchdog["fingerprints"].append({**step, "index": len(watchdog["fingerprints"]), "role": "root"})
    logs = {
        "explained": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\nStep 10 finished\n",
        "unexplained": "Step 10 finished\n",
    }
    results = {name: diagnose_text(text, fingerprints) for name, text in logs.items()}
    assert [(match["id"], match["role"], match["explained_by"]) for match in results["explained"]["matches"]] == [
        ("cuda-oom", "root", []),
        ("nccl-watchdog-timeout", "symptom", ["cuda-oom"]),
    ]
    # Without the OOM, the watchdog line is the cause found, and the other entry stays a candidate.
    assert [(match["id"], match["role"]) for match in results["unexplained"]["matches"]] == [
        ("nccl-watchdog-timeout", "root"),
        ("cuda-illegal-memory-access", "symptom"),
    ]

    assert_node_engine_agrees(fingerprints, logs, tmp_path)


def test_a_fingerprint_with_requires_any_counts_only_when_the_log_holds_one_of_its_literals(fingerprint_set, tmp_path):
    """A killed compiler names no package; the package being built shows on another line."""
    fingerprints = json.loads(json.dumps(fingerprint_set))
    generic = next(entry for entry in fingerprints["entries"] if entry["id"] == "cuda-error-generic")
    generic["fingerprints"][0]["requires_any"] = ["flash_attn", "flash-attn"]
    logs = {
        "without": "RuntimeError: CUDA error: unknown error\n",
        "before": "Building wheel for flash-attn (setup.py) ... error\nRuntimeError: CUDA error: unknown error\n",
        "after": "RuntimeError: CUDA error: unknown error\n  File /tmp/flash_attn/setup.py, line 3\n",
    }
    results = {name: diagnose_text(text, fingerprints) for name, text in logs.items()}
    assert results["without"]["matches"] == [] and not results["without"]["confident"]
    for name in ("before", "after"):
        assert [(match["id"], match["role"]) for match in results[name]["matches"]] == [("cuda-error-generic", "root")]
        assert [item["line"] for item in results[name]["matches"][0]["evidence"]] == [2 if name == "before" else 1]
    assert fingerprints_hit(logs["without"], fingerprints) == set()
    assert fingerprints_hit(logs["after"], fingerprints) == {("cuda-error-generic", 0)}

    # The literal may arrive in a later chunk than the line it vouches for.
    matcher = Matcher(fingerprints)
    matcher.feed_text(logs["after"].splitlines(), chunk_lines=1)
    assert [match["id"] for match in matcher.result()["matches"]] == ["cuda-error-generic"]

    assert_node_engine_agrees(fingerprints, logs, tmp_path)


def test_size_at_least_compares_two_captured_sizes_in_bytes(fingerprint_set, tmp_path):
    """Gigabytes reserved but unallocated are fragmentation only when they could have held the request."""
    fingerprints = json.loads(json.dumps(fingerprint_set))
    oom = next(entry for entry in fingerprints["entries"] if entry["id"] == "cuda-oom")
    oom["fingerprints"][0].update(
        regex=r"Tried to allocate ([0-9.]+ [A-Za-z]+)\..{0,300}?and ([0-9.]+ [A-Za-z]+) is reserved",
        anchor="is reserved",
        size_at_least=[2, 1],
    )
    line = "CUDA out of memory. Tried to allocate {}. Of it 1 GiB is allocated, and {} is reserved by PyTorch\n"
    logs = {
        "larger_in_a_bigger_unit": line.format("848.00 MiB", "8.04 GiB"),
        "equal": line.format("1024.00 MiB", "1.00 GiB"),
        "smaller": line.format("5.25 GiB", "1.16 GiB"),
        "bytes_against_kib": line.format("2048 bytes", "2.00 KiB"),
        "decimal_against_binary": line.format("1.00 GiB", "1000 MB"),
        "unknown_unit": line.format("2.00 GiB", "9.00 XB"),
    }
    results = {name: ids(diagnose_text(text, fingerprints)) for name, text in logs.items()}
    assert results == {
        "larger_in_a_bigger_unit": ["cuda-oom"],
        "equal": ["cuda-oom"],
        "smaller": [],
        "bytes_against_kib": ["cuda-oom"],
        "decimal_against_binary": [],
        "unknown_unit": [],
    }
    assert_node_engine_agrees(fingerprints, logs, tmp_path)


def test_an_error_line_is_unmatched_unless_an_entry_it_is_evidence_for_is_shown(fingerprint_set, tmp_path):
    """A context line alone, or a fingerprint whose required literal never came, matches no entry:
    the line must still be listed, once, however many error hints it holds."""
    fingerprints = json.loads(json.dumps(fingerprint_set))
    generic = next(entry for entry in fingerprints["entries"] if entry["id"] == "cuda-error-generic")
    generic["fingerprints"][0]["requires_any"] = ["Traceback (most recent call last)"]
    logs = {
        "context_alone": "torch.OutOfMemoryError: Error: out of memory\n",
        "with_its_root": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\nOutOfMemoryError: Error: again\n",
        "requirement_missing": "RuntimeError: CUDA error: unknown error\n",
        "requirement_met": "Traceback (most recent call last):\nRuntimeError: CUDA error: unknown error\n",
    }
    results = {name: diagnose_text(text, fingerprints) for name, text in logs.items()}
    unmatched = {
        name: [(item["line"], item["count"]) for item in result["unmatched_errors"]] for name, result in results.items()
    }
    assert unmatched == {
        "context_alone": [(1, 1)],
        "with_its_root": [],
        "requirement_missing": [(1, 1)],
        "requirement_met": [(1, 1)],
    }
    assert results["context_alone"]["matches"] == [] and results["requirement_missing"]["matches"] == []
    assert [match["id"] for match in results["with_its_root"]["matches"]] == ["cuda-oom"]
    assert results["requirement_met"]["unmatched_errors"][0]["text"] == "Traceback (most recent call last):"

    assert_node_engine_agrees(fingerprints, logs, tmp_path)


def test_error_looking_lines_include_bare_exceptions_aborts_and_panics(fingerprint_set, tmp_path):
    """A bare exception name closing a traceback is its error line; the traceback's indented
    source lines are not. The other lines hold none of the older hints (no "Error:", "ERROR"...)."""
    onnxruntime_line = (
        "[E:onnxruntime:, sequential_executor.cc:572 ExecuteKernel] Non-zero status code returned while running "
        "Slice node. Name:'/encoder/bert/Slice' Status Message: CUDA error cudaErrorSymbolNotFound:named symbol not found"
    )
    xid_line = (
        "NVRM: Xid (PCI:0000:10:00): 31, pid=1958081, name=python3, channel 0x00000009, intr 00000000. "
        "MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_11 faulted @ 0x7f0b_27600000. Fault is of type FAULT_PDE"
    )
    loader_line = (
        "0.00.006.542 E load_backend: failed to load /usr/lib/ollama/cuda_v13/libggml-cuda.so: "
        "libcuda.so.1: cannot open shared object file: No such file or directory"
    )
    long_assertion = (
        "/usr/include/c++/13/bits/stl_vector.h:1130: std::vector<_Tp, _Alloc>::reference "
        "std::vector<_Tp, _Alloc>::operator[](size_type) [with _Tp = int]: Assertion '__n < this->size()' failed."
    )
    logs = {
        "bare_exception": (
            "Traceback (most recent call last):\n"
            '  File "model.py", line 9, in forward\n'
            "    raise NotImplementedError\n"
            "NotImplementedError\n"
            "[rank1]: AssertionError"  # the last line, with no newline after it
        ),
        "aborts_and_panics": (
            "terminate called after throwing an instance of 'std::bad_alloc'\n"
            "  what():  std::bad_alloc\n"
            "thread 'main' panicked at src/lib.rs:12:5:\n"
            "panic: runtime error: invalid memory address or nil pointer dereference\n"
            "a line about ErrorHandler that is not an error\n"
            "/src/llama-sampling.cpp:726: GGML_ASSERT(iter != probs.end()) failed\n"
            "[sgl_kernel] CRITICAL: Could not load any common_ops library!\n"
            f"{long_assertion}\n"
            "python: ggml.c:42: main: Assertion `ok' failed.\n"
            "Exception in thread Thread-1 (worker):\n"
            "python: error while loading shared libraries: libpython3.11.so.1.0: cannot open shared object file\n"
            "  × No solution found when resolving dependencies:\n"
        ),
        # The report lists at most MAX_UNMATCHED lines, so these have a log of their own.
        "runtime_and_kernel": (
            "2026-02-04 10:00:01.123 starting\n"
            f"{onnxruntime_line}\n"
            f"{xid_line}\n"
            "[1]    85268 segmentation fault  ./llm_demo\n"
            f"{loader_line}\n"
        ),
        "c_assert_import_rocr_and_llama_load": (
            "Assertion failed: found, file F:\\llama.cpp\\src\\llama-sampler.cpp, line 1094\n"
            "cannot import name 'AutoModelForCausalLMWithValueHead' from 'trl'\n"
            "Memory critical error by agent node-0 (Agent handle: 0x...) on address 0x7f.... Reason: Memory in use.\n"
            "llama_model_load: error loading model: missing tensor 'blk.0.ssm_dt.bias'\n"
            "llama_model_load_from_file_impl: failed to load model\n"
            "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, libcudnn_ops.so}\n"
            "Invalid handle. Cannot load symbol cudnnCreateTensorDescriptor\n"
        ),
        "tensorrt_vulkan_and_glibc": (
            "[07/08/2025-19:47:10] [TRT-LLM] [RANK 1] [I] Loading engine\n"
            "[07/08/2025-19:47:15] [TRT-LLM] [RANK 1] [E] Failed to initialize executor on rank 1\n"
            "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory\n"
            "double free or corruption (out)\n"
        ),
        # glog's severity letter goes with the stripped prefix: E and F lines are errors, I and W are not.
        "glog_severity": (
            "I0303 05:59:07.900000      41 service.cc:152] XLA service initialized\n"
            "W0303 05:59:07.950000      41 gpu_helpers.cc:80] slow device\n"
            "E0303 05:59:07.961540      41 cuda_dnn.cc:454] Loaded runtime CuDNN library: 9.5.1 but source was"
            " compiled with: 9.8.0.\n"
            "F0303 05:59:08.000001      41 main.cc:7] Check failed: ok\n"
            "Every line from here on is plain\n"
        ),
    }
    expected = {
        "bare_exception": [
            (1, "Traceback (most recent call last):"),
            (4, "NotImplementedError"),
            (5, "AssertionError"),
        ],
        "aborts_and_panics": [
            (1, "terminate called after throwing an instance of 'std::bad_alloc'"),
            (3, "thread 'main' panicked at src/lib.rs:12:5:"),
            (4, "panic: runtime error: invalid memory address or nil pointer dereference"),
            (6, "/src/llama-sampling.cpp:726: GGML_ASSERT(iter != probs.end()) failed"),
            (7, "[sgl_kernel] CRITICAL: Could not load any common_ops library!"),
            (8, long_assertion),
            (9, "python: ggml.c:42: main: Assertion `ok' failed."),
            (10, "Exception in thread Thread-1 (worker):"),
            (11, "python: error while loading shared libraries: libpython3.11.so.1.0: cannot open shared object file"),
            (12, "  × No solution found when resolving dependencies:"),
        ],
        "runtime_and_kernel": [
            (2, onnxruntime_line),
            (3, xid_line),
            (4, "[1]    85268 segmentation fault  ./llm_demo"),
            (5, loader_line),
        ],
        "c_assert_import_rocr_and_llama_load": [
            (1, "Assertion failed: found, file F:\\llama.cpp\\src\\llama-sampler.cpp, line 1094"),
            (2, "cannot import name 'AutoModelForCausalLMWithValueHead' from 'trl'"),
            (
                3,
                "Memory critical error by agent node-0 (Agent handle: 0x...) on address 0x7f.... Reason: Memory in use.",
            ),
            (4, "llama_model_load: error loading model: missing tensor 'blk.0.ssm_dt.bias'"),
            (5, "llama_model_load_from_file_impl: failed to load model"),
            (
                6,
                "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, libcudnn_ops.so}",
            ),
            (7, "Invalid handle. Cannot load symbol cudnnCreateTensorDescriptor"),
        ],
        "tensorrt_vulkan_and_glibc": [
            (2, "[07/08/2025-19:47:15] [TRT-LLM] [RANK 1] [E] Failed to initialize executor on rank 1"),
            (3, "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory"),
            (4, "double free or corruption (out)"),
        ],
        "glog_severity": [
            (3, "Loaded runtime CuDNN library: 9.5.1 but source was compiled with: 9.8.0."),
            (4, "Check failed: ok"),
        ],
    }
    for chunk_lines in (20000, 1):
        for name, text in logs.items():
            matcher = Matcher(fingerprint_set)
            matcher.feed_text(text.split("\n"), chunk_lines=chunk_lines)
            unmatched = [(item["line"], item["text"]) for item in matcher.result()["unmatched_errors"]]
            assert unmatched == expected[name], (name, chunk_lines)

    assert_node_engine_agrees(fingerprint_set, logs, tmp_path)
