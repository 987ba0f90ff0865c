"""What the run prints: steps, results and tables, one line at a time from any thread."""
import sys
import threading

TTY = sys.stdout.isatty()
C_STEP, C_OK, C_ERR, C_OFF = ("\x1b[1;34m", "\x1b[32m", "\x1b[1;31m", "\x1b[0m") if TTY else ("", "", "", "")
PRINT_LOCK = threading.Lock()


def out(text):
    with PRINT_LOCK:
        print(text, flush=True)


def step(text):
    out(f"{C_STEP}==> {text}{C_OFF}")


def say(text):
    out(f"    {text}")


def ok(text):
    out(f"    {C_OK}ok{C_OFF}: {text}")


def bad(text):
    out(f"    {C_ERR}FAIL{C_OFF}: {text}")


def table(headers, rows):
    cells = [[str(h) for h in headers]] + [[("" if c is None else str(c)) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    line = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
    lines = [line, "| " + " | ".join(cells[0][i].ljust(widths[i]) for i in range(len(widths))) + " |", line]
    for row in cells[1:]:
        lines.append("| " + " | ".join(row[i].ljust(widths[i]) for i in range(len(widths))) + " |")
    lines.append(line)
    out("\n".join(lines))
