#!/usr/bin/env python3
"""Writes clip_time_cases.json: the case table of the clip-time rule
(docs/time.md), whose expected values are worked out here in exact rational
arithmetic from the rule's definition, independently of every
implementation that the table then checks (C, the GLSL of the world, the
three.js and Godot players).

    python3 tests/common/clip_time_cases.py > tests/common/clip_time_cases.json

Inputs are chosen to be exact in float32 where a case sits on a boundary
(a frame, the seam, the end), so that float32 arithmetic and exact
arithmetic agree there; the other cases allow the table's tolerances."""
import json
import sys
import math
from fractions import Fraction as F


def frame_count(d, fps):
    if d <= 0:
        return 1
    steps = math.ceil(d * fps - F(1, 1000))
    return 1 + max(1, steps)


# The clips: duration, fps, frames and layout.
CLIPS = {
    # 6.5 frames at 8 fps: the last step is half a frame.
    "half_step": dict(duration_s=0.8125, fps=8.0, layout="end"),
    # A whole number of frames: every step is 1 / fps.
    "whole": dict(duration_s=0.875, fps=8.0, layout="end"),
    # The example: 0.875 s at 30 fps, 26.25 frames.
    "quarter_30": dict(duration_s=0.875, fps=30.0, layout="end"),
    # A one-shot of 3.2917 s keyed at 24 fps.
    "oneshot_24": dict(duration_s=3.2917, fps=24.0, layout="end"),
    # A single pose.
    "still": dict(duration_s=0.0, fps=30.0, layout="end"),
    # Bakes of manifest versions 1 and 2: round(d * fps) frames that wrap,
    # round(d * fps) + 1 that clamp.
    "v2_loop": dict(duration_s=0.875, fps=8.0, layout="wrap", frame_count=7),
    "v2_once": dict(duration_s=0.875, fps=8.0, layout="clamp", frame_count=8),
}
for clip in CLIPS.values():
    clip.setdefault("frame_count", frame_count(F(clip["duration_s"]), F(clip["fps"])))

# (clip, loop, clock_s, start_s, offset_s, speed, what it checks)
CASES = [
    ("half_step", True, 0.0, 0, 0, 1, "start"),
    ("half_step", True, 0.0625, 0, 0, 1, "halfway between frames 0 and 1"),
    ("half_step", True, 0.125, 0, 0, 1, "exactly on frame 1"),
    ("half_step", True, 0.75, 0, 0, 1, "on the last frame before the short step"),
    ("half_step", True, 0.78125, 0, 0, 1, "halfway through the half-frame last step"),
    ("half_step", True, 0.812255859375, 0, 0, 1, "2^-12 s before the seam"),
    ("half_step", True, 0.8125, 0, 0, 1, "on the seam: frame 0"),
    ("half_step", True, 0.875, 0, 0, 1, "just after the seam"),
    ("half_step", True, -0.0625, 0, 0, 1, "negative clock wraps"),
    ("half_step", True, 0.0625, 0, 0, -1, "negative speed wraps backwards"),
    ("half_step", True, 123.0, 0, 0.25, 0, "speed 0 holds the offset"),
    ("half_step", True, 0.5, 0, 0, 2, "speed 2 past the seam"),
    ("half_step", True, 1.0, 0, 0, 100, "speed 100: 123 loops and a bit"),
    ("half_step", True, 10.25, 10, 0, 1, "started at 10 s"),
    ("half_step", True, 0.0, 0, 2.5, 1, "offset of three loops and a bit"),
    ("half_step", True, 0.25, 0, 0, 0.5, "half speed"),
    ("half_step", True, 20000.25, 0, 0, 1, "clock past 16384 s"),
    ("half_step", True, -20000.25, 0, 0, 1, "clock far below 0"),
    ("half_step", True, 16384.0625, 0, 0, 1, "clock past 16384 s on a seam"),
    ("half_step", True, 50000.5, 49999, 0, 1, "long clock, recent start"),
    ("half_step", False, 0.8125, 0, 0, 1, "one-shot at its end: last frame"),
    ("half_step", False, 5.0, 0, 0, 1, "one-shot held after its end"),
    ("half_step", False, -1.0, 0, 0, 1, "one-shot before its start"),
    ("half_step", False, 0.812255859375, 0, 0, 1, "one-shot 2^-12 s before its end"),
    ("half_step", False, 0.78125, 0, 0, 1, "one-shot in its short last step"),
    ("half_step", False, 1.0, 0, 0, -1, "one-shot backwards past its start"),
    ("half_step", False, 0.0625, 0, 0.8125, -1, "one-shot backwards from its end"),
    ("half_step", False, 0.1, 0, 0.8125, -2, "one-shot backwards at speed 2"),
    ("half_step", False, 30000.0, 0, 0, 1, "one-shot, clock past 16384 s"),
    ("whole", False, 0.875, 0, 0, 1, "whole frames: end"),
    ("whole", False, 0.8125, 0, 0, 1, "whole frames: in the last full step"),
    ("whole", True, 0.8125, 0, 0, 1, "whole frames loop: in the last step"),
    ("whole", True, 0.875, 0, 0, 1, "whole frames loop: seam"),
    ("whole", True, 16384.001953125, 0, 0, 1, "whole frames, clock past 16384 s"),
    ("quarter_30", True, 0.8745, 0, 0, 1, "0.5 ms before the seam of a 26.25-frame loop"),
    ("quarter_30", True, 0.8755, 0, 0, 1, "0.5 ms after that seam"),
    ("quarter_30", True, 0.85, 0, 0, 1, "mid-frame"),
    ("quarter_30", False, 0.875, 0, 0, 1, "its one-shot end"),
    ("quarter_30", False, 0.8745, 0, 0, 1, "0.5 ms before its one-shot end"),
    ("oneshot_24", False, 4.0, 0, 0, 1, "held end of a 3.2917 s one-shot"),
    ("oneshot_24", False, 3.29, 0, 0, 1, "in its last step"),
    ("oneshot_24", False, 1.6875, 0, 0, 1, "mid-clip"),
    ("oneshot_24", True, 3.2917, 0, 0, 1, "looped: seam"),
    ("still", True, 5.0, 0, 0, 1, "zero duration, looping"),
    ("still", False, -3.0, 0, 0, 1, "zero duration, one-shot"),
    ("v2_loop", True, 0.8125, 0, 0, 1, "version 2 loop: last frame steps to frame 0"),
    ("v2_loop", True, 0.875, 0, 0, 1, "version 2 loop: seam"),
    ("v2_loop", True, 0.0625, 0, 0, 1, "version 2 loop: first step"),
    ("v2_once", False, 0.875, 0, 0, 1, "version 2 one-shot: end"),
    ("v2_once", False, 0.8125, 0, 0, 1, "version 2 one-shot: last step"),
    ("v2_once", False, 10.0, 0, 0, 1, "version 2 one-shot: held"),
]


def play_time(clock, start, offset, speed, d, loop):
    t = (clock - start) * speed + offset
    if d <= 0:
        return F(0)
    if loop:
        t -= d * math.floor(t / d)
        return F(0) if t >= d else t
    return min(max(t, F(0)), d)


def frame_pair(clip, t):
    fps, d, n = F(clip["fps"]), F(clip["duration_s"]), clip["frame_count"]
    last = n - 1
    f = max(t * fps, F(0))
    k = math.floor(f)
    alpha = f - k
    if clip["layout"] == "wrap":
        k %= n
        return k, 0 if k == last else k + 1, alpha
    if clip["layout"] == "clamp":
        return (last, last, F(0)) if k >= last else (k, k + 1, alpha)
    if t >= d or k >= last:
        return last, last, F(0)
    step = d * fps - k if k + 1 == last else F(1)
    return k, k + 1, min(alpha / step, F(1))


rows = []
for name, loop, clock, start, offset, speed, why in CASES:
    clip = CLIPS[name]
    t = play_time(F(clock), F(start), F(offset), F(speed), F(clip["duration_s"]), loop)
    f0, f1, w = frame_pair(clip, t)
    rows.append(dict(clip=name, loop=loop, clock_s=clock, start_s=start, offset_s=offset,
                     speed=speed, why=why, time_s=float(t), frame0=f0, frame1=f1,
                     weight=float(w)))

json.dump(dict(
    about="The clip-time rule's case table (docs/time.md); written by clip_time_cases.py",
    time_tolerance_s=2e-5, weight_tolerance=2e-4,
    clips=CLIPS, cases=rows), sys.stdout, indent=1)
print()
