"""A replay of conv2d_3_float32_smaller's two SP queues alone (docs/sim.md "Measured error"), an
experiment on the model's known miss, not the model: 16 DMA engines, each serving the queues with a
packet ready round robin, one packet each, a queue's packets back to back; SP hands its blocks over
in trigger order, one engine's share every 57 ns (the measured stagger); the blocks are triggered at
hardware's times (docs/hw-timing.md §4.4) and each window is printed beside hardware's.

    python3 bench/conv2d3_replay.py            # the packet laws alone
    python3 bench/conv2d3_replay.py --slow     # with §2.4's slow first 18,432-B packets (1113 ns)
    python3 bench/conv2d3_replay.py --slow --budget 160   # DRAM-read bytes in flight ≤ 160 KiB,
                                                          # granted first come, first served
"""
import argparse

E, STAGGER, TRIGGER, LAG, LAST_LAG, BIAS_LAG = 16, 57, 900, 237, 450, 578


def data_ns(b):
    """docs/sim.md "Packet timing": small packets from the table, else 8 ns + bytes / 27.1 B/ns."""
    for lim, ns in ((36, 9), (256, 35), (512, 61), (2304, 93)):
        if b <= lim:
            return ns
    return round(8 + b / 27.1)


def blocks(slow):
    w = [4608] * 7 + [4612]
    x = [8192, 8196]
    bias = [36]
    sr = [18432, 18436]
    # (queue, trigger µs, one engine's packets); hw-timing §4.4's SP triggers from 11.465 µs on
    bl = [('SR', 11.465, sr), ('IO', 11.538, x), ('SR', 13.306, sr), ('IO', 13.372, x), ('IO', 13.457, bias),
          ('IO', 13.547, w), ('IO', 13.629, w), ('SR', 37.494, sr), ('SR', 39.330, sr), ('IO', 39.406, bias)]
    return [(q, t, [(b, 1113 if slow and b == 18432 else data_ns(b)) for b in p]) for q, t, p in bl]


HW = [(12.434, 16.657), (13.490, 16.914), (14.839, 21.145), (16.013, 21.490), (17.397, 21.661),
      (17.404, 22.873), (18.798, 24.272), (38.399, 41.486), (40.396, 45.511), (41.566, 44.085)]


def run(bl, budget):
    n = len(bl)
    qblocks = {}
    for i, (q, _, _) in enumerate(bl):
        qblocks.setdefault(q, []).append(i)
    qs = sorted(qblocks)
    hand = [[None] * E for _ in range(n)]
    start = [[None] * E for _ in range(n)]
    end = [[None] * E for _ in range(n)]
    free, rr = [0] * E, [None] * E
    pos = [[0] * n for _ in range(E)]
    qptr = [{q: 0 for q in qs} for _ in range(E)]
    order = sorted(range(n), key=lambda i: bl[i][1])
    di, disp_free = 0, 0
    fifo, inflight, active = [], 0, {}
    for t in range(80000):
        while di < n:  # SP's hand-over: one engine's share at a time, in trigger order
            b = order[di]
            e = next((k for k in range(E) if hand[b][k] is None), None)
            if e is None:
                di += 1
                continue
            if max(disp_free, int(bl[b][1] * 1000) + TRIGGER) > t:
                break
            hand[b][e], disp_free = t, t + STAGGER
            break
        for e in list(active):  # data done
            done, by, b, last = active[e]
            if done <= t:
                inflight -= by
                del active[e]
                free[e] = done
                if last:
                    end[b][e] = done + (BIAS_LAG if by <= 36 else LAST_LAG)
        while fifo and (inflight + fifo[0][1] <= budget or inflight == 0):  # reads granted in order
            e, by, b, d, last = fifo.pop(0)
            inflight += by
            active[e] = (t + d, by, b, last)
        for e in range(E):  # each free engine asks for its next packet, round robin over its queues
            if free[e] > t:
                continue
            cands = [q for q in qs if qptr[e][q] < len(qblocks[q])
                     and hand[qblocks[q][qptr[e][q]]][e] is not None]
            if not cands:
                continue
            q = cands[0]
            if rr[e] in qs and len(cands) > 1:
                i = qs.index(rr[e])
                q = next(qs[(i + j) % len(qs)] for j in range(1, len(qs) + 1) if qs[(i + j) % len(qs)] in cands)
            b = qblocks[q][qptr[e][q]]
            by, d = bl[b][2][pos[e][b]]
            if start[b][e] is None:
                start[b][e] = t
            rr[e] = q
            pos[e][b] += 1
            last = pos[e][b] == len(bl[b][2])
            if last:
                qptr[e][q] += 1
            fifo.append((e, by, b, d, last))
            free[e] = 1 << 60
    return [(min(s for s in start[b] if s is not None) / 1000, max(x for x in end[b] if x is not None) / 1000)
            for b in range(n)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--slow', action='store_true')
    ap.add_argument('--budget', type=int, default=0, help='KiB of DRAM reads in flight (0: none)')
    a = ap.parse_args()
    bl = blocks(a.slow)
    for (q, trig, _), (s, e), (hs, he) in zip(bl, run(bl, a.budget * 1024 or 1 << 40), HW):
        print('%s trigger %6.3f  replay %6.3f-%6.3f (%.3f)  hardware %6.3f-%6.3f (%.3f)' % (q, trig, s, e, e - s, hs, he, he - hs))


if __name__ == '__main__':
    main()
