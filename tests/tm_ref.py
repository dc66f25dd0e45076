#!/usr/bin/env python3
"""tm_ref -- check `ptbrowse dump --cycles` against rules taken from the
Intel SDM alone (36.3.6, 36.3.7, 36.4.2.12, 36.4.2.14, 36.4.2.22, 36.8.3),
not from decoder/tm.c: an independent reference for the time model.

usage: tm_ref.py --mtc-freq N --nom-freq N --eax N --ebx N [--tsc-hz HZ]
                 [--skl168] DUMP

DUMP is the output of `ptbrowse dump --cycles` with the same timing
options (--tsc-hz: the TSC frequency its MHz use, a perf.data's
TIME_CONV's; default P1 * 100 MHz).  Checks, on every row:
  - time never goes backwards, cycles never decrease, and every CYC's
    payload is in the cumulative count;
  - a CYC right before a TSC (outside PSB+) was sent in the TSC's cycle,
    so the next CYC with a known ratio lies after the TSC (it is not held
    at the TSC's time);
  - a PSB+ TSC is status only: never cycle-exact;
  - every MTC whose place the SDM's arithmetic gives (from the TMA after
    a TSC, or from the previous MTC's payload, a TSC between resolving
    wraps; not after trouble until a TSC) is there, and no row before it
    is later;
  - every clean MTC-to-MTC period (consecutive payloads, CYCs in it, no
    OVF, loss, PWRE..PWRX, EXSTOP, CBR change, or PSB on a CPU with erratum
    SKL168) whose MTCs are both in a CYC's cycle (a CYC right before each,
    outside PSB+; else a cycle threshold may hide cycles at them) re-measures
    the MHz: cycles * P1 * 100 MHz / ticks.
Prints one line of counts; exit 1 with the first failures if a rule broke.
"""
import re
import sys

HEX16 = re.compile(r'^[0-9a-f]{16}$')
FLAGS = re.compile(r'^[a-z]{1,16}$')


class Row:
    __slots__ = ('cyc', 'mark', 't', 'mhz', 'flags', 'off', 'name', 'arg',
                 'line')


def parse(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith('['):
                continue
            tok = line.split()
            if len(tok) < 7:
                continue
            r = Row()
            c = tok[0]
            r.mark = c[-1] if c[-1] in '=~' else ' '
            c = c.rstrip('=~')
            r.cyc = None if c == '-' else int(c)
            whole, frac = tok[1].split('.')
            r.t = int(whole, 16) * 256 + int(frac, 16)   # in 1/256 ticks
            m = tok[4].rstrip('~')     # '~': from an estimated TSC Hz
            r.mhz = None if m == '-' else float(m)
            i = 5
            r.flags = ''
            if FLAGS.match(tok[5]) and HEX16.match(tok[6]):
                r.flags = tok[5]
                i = 6
            if not HEX16.match(tok[i]):
                raise SystemExit('%s:%d: cannot parse: %s' % (path, n, line))
            r.off = int(tok[i], 16)
            r.name = tok[i + 1] if len(tok) > i + 1 else ''
            r.arg = tok[i + 2:]
            r.line = n
            rows.append(r)
    return rows


def main():
    args = sys.argv[1:]
    opt = {'--mtc-freq': 3, '--nom-freq': 0, '--eax': 0, '--ebx': 0,
           '--tsc-hz': 0}
    skl168 = False
    while args and args[0].startswith('--'):
        a = args.pop(0)
        if a == '--skl168':
            skl168 = True
        else:
            opt[a] = int(args.pop(0), 0)
    rows = parse(args[0])
    freq, p1 = opt['--mtc-freq'], opt['--nom-freq']
    eax, ebx = opt['--eax'], opt['--ebx']
    have_ctc = eax and ebx
    # One CTC tick and one MTC period, in 1/256 TSC ticks.
    ctc = lambda n: n * ebx * 256 / eax if have_ctc else 0
    period = ctc(1 << freq)
    # the TSC Hz the MHz are measured at: --tsc-hz (a perf.data's
    # TIME_CONV's), else P1's estimate
    tsc_hz = opt['--tsc-hz'] or p1 * 100e6
    errs = []
    n = {'rows': len(rows), 'held': 0, 'mtc_placed': 0, 'periods': 0,
         'measured': 0, 'untied': 0}

    def err(r, msg):
        if len(errs) < 20:
            errs.append('line %d (0x%x %s): %s' % (r.line, r.off, r.name, msg))

    prev = None
    in_psb = False
    last_real = None        # the last packet that is not a PAD
    tsc_tied = None         # a TSC that took the CYC right before it
    # The crystal clock reference: (time, CTC[15:0]) from a TMA (its TSC
    # less FastCounter) or (time, CTC[MTCFreq+7:0]) from the last MTC (its
    # payload << MTCFreq): an MTC's payload is CTC[MTCFreq+7:MTCFreq], so
    # from an MTC the next wraps at 2^(MTCFreq+8), from a TMA at 2^16 where
    # that is less (MTCFreq 9 and up).
    ref = None
    ref_trouble = False     # trouble since the reference, no TSC after it
    tsc_since = None        # a TSC since the last MTC
    trouble = True          # OVF, loss, sleep... since the last MTC
    period_start = None     # (row) of the MTC that began a clean period
    period_cyc = False
    sleeping = False
    cbr = None
    tma_due = False
    last_mtc_after_tsc = None
    for r in rows:
        if prev:
            if r.t < prev.t:
                err(r, 'time went back')
            if prev.cyc is not None and r.cyc is not None and r.cyc < prev.cyc:
                err(r, 'cycles went back')
        if r.name == 'cyc':
            v = int(r.arg[0], 16)
            base = prev.cyc if prev and prev.cyc is not None else 0
            if r.cyc != base + v:
                err(r, 'cycles %s != %d + %d' % (r.cyc, base, v))
            period_cyc = period_cyc or v > 0
            if tsc_tied is not None and v and 'u' not in r.flags:
                n['held'] += 1
                if r.t <= tsc_tied.t:
                    err(r, 'the CYC after a TSC is held at the TSC')
            tsc_tied = None
        if r.name == 'psb':
            in_psb = True
            if skl168:
                trouble = True
        elif r.name == 'psbend':
            in_psb = False
        elif r.name == 'tsc':
            if in_psb and r.mark == '=':
                err(r, 'a PSB+ TSC is status only, not cycle-exact')
            if not in_psb and last_real is not None and last_real.name == 'cyc':
                tsc_tied = r
            tsc_since = r
            ref_trouble = False     # the TSC resolves the wraps
            tma_due = True
        elif r.name == 'tma' and tsc_since is not None and tma_due:
            tma_due = False
            if last_mtc_after_tsc is None:
                ctc_v = int(r.arg[0].rstrip(','), 16)
                fc = int(r.arg[1], 16)
                ref = (int(tsc_since.arg[0], 16) * 256 - fc * 256, ctc_v, True)
                ref_trouble = False
                tsc_since = None
        elif r.name == 'mtc' and have_ctc:
            pay = int(r.arg[0], 16)
            want = None
            if ref is not None and not ref_trouble:
                bits = min(freq + 8, 16) if ref[2] else freq + 8
                delta = ((pay << freq) - ref[1]) & ((1 << bits) - 1)
                if not delta and not ref[2]:
                    delta = 1 << bits
                want = ref[0] + ctc(delta)
                if tsc_since is not None:
                    floor = int(tsc_since.arg[0], 16) * 256 - ctc(1)
                    while want < floor:
                        want += ctc(1 << bits)
            if want is not None and 'd' not in r.flags:
                n['mtc_placed'] += 1
                # Nothing before an MTC happened after it (36.4.2.12).
                if prev is not None and prev.t > want + 1:
                    err(r, 'a row before the MTC is later: %x > %x' %
                        (prev.t, int(want)))
                elif 'c' not in r.flags and abs(r.t - want) > 1:
                    err(r, 'MTC at %x, the SDM places it at %x' %
                        (r.t, int(want)))
            # in a CYC's cycle: the CYC right before it (outside PSB+);
            # else a cycle threshold may hide cycles here (36.3.6.3), and
            # a period ending or starting so is no sure measurement
            tied = (not in_psb and last_real is not None and
                    last_real.name == 'cyc')
            # a clean period: consecutive payloads, nothing in between
            if (period_start is not None and not trouble and
                    tsc_since is None and period_cyc and
                    pay == (period_start[0] + 1) & 255 and
                    not sleeping and 'l' not in r.flags and
                    not (tied and period_start[2])):
                n['untied'] += 1
            elif (period_start is not None and not trouble and
                    tsc_since is None and period_cyc and
                    pay == (period_start[0] + 1) & 255 and
                    not sleeping and 'l' not in r.flags):
                n['periods'] += 1
                cycles = r.cyc - period_start[1].cyc
                ticks = (r.t - period_start[1].t) / 256
                if ticks > 0 and cycles > 0 and tsc_hz:
                    mhz = cycles * tsc_hz / ticks / 1e6
                    if mhz < 10000 and (r.mhz is None or
                                        abs(r.mhz - mhz) > 0.2):
                        err(r, 'period not re-measured: %s MHz, '
                            'measured %.1f' % (r.mhz, mhz))
                    else:
                        n['measured'] += 1
            ref = (r.t, pay << freq, False) if 'm' not in r.flags else None
            ref_trouble = False
            if tsc_since is not None:
                last_mtc_after_tsc = r
            period_start = (pay, r, tied) if r.cyc is not None else None
            period_cyc = False
            trouble = sleeping
            tsc_since = None
        elif r.name in ('ovf',):
            trouble = True
        elif r.name == 'pwre':
            sleeping = True
            trouble = True
        elif r.name == 'pwrx':
            sleeping = False
            trouble = True
        elif r.name == 'exstop':
            trouble = True
        elif r.name == 'cbr':
            v = int(r.arg[0], 16)
            if cbr is not None and v != cbr:
                trouble = True
            cbr = v
        if 'd' in r.flags or 'o' in r.flags:
            trouble = True
            ref_trouble = True
        if r.name == 'tsc':
            last_mtc_after_tsc = None
        if r.name != 'pad':
            last_real = r
        prev = r
    print('rows %(rows)d, CYCs after a tied TSC %(held)d, MTCs placed '
          '%(mtc_placed)d, clean periods %(periods)d, re-measured '
          '%(measured)d, not in CYC cycles %(untied)d' % n)
    for e in errs:
        print('FAIL ' + e)
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
