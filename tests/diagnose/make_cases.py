"""Write the conformance logs in tests/diagnose/cases/ (`make golden` runs this, then records expectations).

Each case is bytes on disk, so encodings, BOMs, CRLF and invalid bytes reach both engines exactly.
"""

from __future__ import annotations

from pathlib import Path

CASES = Path(__file__).parent / "cases"

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB"
WATCHDOG = (
    "[E ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=42, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600031 milliseconds before timing out."
)
IMA = "RuntimeError: CUDA error: an illegal memory access was encountered"
ADVICE = [
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.",
]
TRACEBACK = ["Traceback (most recent call last):", '  File "train.py", line 88, in <module>', "    loss.backward()"]


def lines(*rows: str, end: str = "\n") -> bytes:
    return (end.join(rows) + end).encode("utf-8")


def cases() -> dict[str, bytes]:
    return {
        "ansi_colours": lines("\x1b[32mEpoch 1\x1b[0m", f"\x1b[1;31m{OOM}\x1b[0m", "\x1b]0;title\x07done"),
        "crlf_progress": lines(
            "Loading checkpoint shards: 100%|##########| 4/4",
            " 10%|#         | 10/100 [00:01<00:09]\r 20%|##        | 20/100 [00:02<00:08]\r 30%|###       | 30/100",
            "Step 10 finished",
            IMA,
            end="\r\n",
        ),
        "utf8_bom": b"\xef\xbb\xbf" + lines("starting", OOM),
        "utf16_le_bom": b"\xff\xfe" + "starting\n".encode("utf-16-le") + (OOM + "\n").encode("utf-16-le"),
        "utf16_be_no_bom": ("starting\n" + OOM + "\n").encode("utf-16-be"),
        "invalid_bytes": b"caf\xe9 \xff\xfe\xfd step 3\n\xe2\x82 truncated\n" + OOM.encode() + b" \xc3(\n",
        "cjk_around_error": lines("训练开始（第 1 轮）", f"错误：{IMA}（第 10 步）", "Step 10 finished", "训练失败"),
        "timestamps": lines(
            "2026-11-30T10:57:14.123456Z Step 10 finished",
            f"I1130 10:57:15.000001 12345 train.cc:42] {IMA}",
            "[10:57:16] shutting down",
            f"[2026-11-30 10:57:17,001] ERROR {OOM}",
        ),
        "rank_prefixes": lines(
            f"[rank3]: {OOM}",
            f"[default3]:{OOM}",
            "12: " + WATCHDOG.format(r=12),
            "[1,4]<stderr>:" + WATCHDOG.format(r=4),
        ),
        "same_traceback_ranks": b"".join(
            lines(*(f"[rank{rank}]: {row}" for row in [*TRACEBACK, IMA, "Step 10 finished"])) for rank in (5, 2, 7)
        ),
        "concatenated_rank_files": lines(
            "[rank0]: 2026-11-30 12:00:00,000 Step 10 finished",
            f"[rank0]: 2026-11-30 12:00:05,000 {IMA}",
            "[rank1]: 2026-11-30 12:00:00,500 Step 10 finished",
            f"[rank1]: 2026-11-30 12:00:01,000 {IMA}",
            "[rank1]: CUDA kernel errors might be asynchronously reported at some other API call",
        ),
        "oom_then_watchdog": lines(
            "[rank0]: step 100 loss 1.92",
            f"[rank3]: {OOM}",
            *(f"[rank{r}]:" + WATCHDOG.format(r=r) for r in (0, 1, 2)),
        ),
        "generic_and_specific_one_line": lines("Step 10 finished", IMA),
        "advice_only": lines("step 5", *ADVICE, "RuntimeError: something unexpected happened"),
        "exclude": lines("RuntimeError: CUDA error: unspecified launch failure", "I_AM_EXCLUDED_MARKER"),
        "match_all_distant": lines("Step 10 finished", *(f"step {n} loss 0.5" for n in range(11, 500)), IMA),
        "match_all_missing_part": lines(IMA),
        "hostile_html": lines('<script>alert("x")</script>', f"{IMA} <img src=x onerror=alert(1)>", "Step 10 finished"),
        "empty": b"",
    }


def main() -> None:
    CASES.mkdir(exist_ok=True)
    for name, data in cases().items():
        (CASES / f"{name}.log").write_bytes(data)


if __name__ == "__main__":
    main()
