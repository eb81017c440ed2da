"""The relay that keeps the terminal output of notebooks running at once readable."""
import io
import os

from lib.site.console import LineRelay, strip_ansi


def relay(interval=10.0):
    out = io.StringIO()
    return LineRelay("03", out=out, interval=interval), out


def test_each_line_is_printed_once_with_its_prefix():
    r, out = relay()
    r.feed("first line\nsecond ", now=0.0)
    r.feed("half\n\n   \nthird", now=0.0)
    assert out.getvalue() == "[03] first line\n[03] second half\n"  # blank lines dropped, the rest waits
    r.flush()
    assert out.getvalue().endswith("[03] third\n")


def test_a_bar_redrawn_in_place_is_printed_at_most_every_interval_and_its_end_state_always():
    r, out = relay(interval=10.0)
    r.feed("\rsweep:  10%|#", now=0.0)
    r.feed("\rsweep:  20%|##", now=1.0)    # the 10% state is printed at t = 1 (the first state)
    r.feed("\rsweep:  30%|###", now=9.0)   # 20% is held back: 8 s after the last print
    r.feed("\rsweep:  40%|####", now=11.5)  # 30% printed: 10.5 s after
    r.feed("\rsweep: 100%|##########\n", now=12.0)  # the end state, always
    assert out.getvalue().splitlines() == ["[03] sweep:  10%|#", "[03] sweep:  30%|###", "[03] sweep: 100%|##########"]


def test_the_interval_is_a_bound_just_inside_and_just_outside():
    r, out = relay(interval=10.0)
    r.feed("\rA", now=0.0)
    r.feed("\rB", now=0.0)   # A printed at t = 0
    r.feed("\rC", now=10.0)  # B: exactly 10 s later, printed
    r.feed("\rD", now=19.99)  # C: 9.99 s after, held back
    assert out.getvalue().splitlines() == ["[03] A", "[03] B"]
    r.flush()  # the last state not printed yet is printed at the end
    assert out.getvalue().splitlines()[-1] == "[03] D"


def test_a_bar_cleared_at_the_end_leaves_no_blank_line_and_control_sequences_are_dropped():
    r, out = relay()
    r.feed("\x1b[A\x1b[32mgreen\x1b[0m\n", now=0.0)
    r.feed("\rbar 50%\r" + " " * 20 + "\r", now=100.0)  # tqdm(leave=False) clears its line
    r.feed("next\r\n", now=100.0)  # a terminal's line end
    assert out.getvalue().splitlines() == ["[03] green", "[03] bar 50%", "[03] next"]
    assert strip_ansi("\x1b[2K\x1b[1Gx\x1b(B") == "x"


def test_what_a_process_writes_to_the_relay_is_printed_when_it_closes():
    out = io.StringIO()
    with LineRelay("07", out=out) as r:
        os.write(r.fd, "héllo\nworld".encode())
    assert out.getvalue() == "[07] héllo\n[07] world\n"
