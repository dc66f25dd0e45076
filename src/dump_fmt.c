/* dump_fmt -- packet payloads in ptdump's vocabulary. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dump_fmt.h"

static const char hexdigits[] = "0123456789abcdef";

/* Hex of @v without leading zeros (at least one digit), or with exactly
 * @width digits if @width > 0.  Faster than snprintf, which matters when
 * dumping gigabytes.  Returns the length; @buf needs 17 bytes. */
static int hex(char *buf, uint64_t v, int width)
{
	int n = 1, i;

	/* The number of digits: enough for v, at least @width. */
	if (v)
		n = (64 - __builtin_clzll(v) + 3) / 4;
	if (n < width)
		n = width;
	for (i = n - 1; i >= 0; i--) {
		buf[i] = hexdigits[v & 0xf];
		v >>= 4;
	}
	buf[n] = 0;
	return n;
}

static int fmt_hex(char *buf, size_t size, uint64_t v)
{
	if (size < 17)
		return snprintf(buf, size, "%" PRIx64, v);
	return hex(buf, v, 0);
}

static int fmt_ip(char *buf, size_t size, const struct pkt *pkt)
{
	uint64_t ip = pkt->u.ip.ip;

	if (size >= 20 && pkt->u.ip.ipc == PKT_IPC_UPDATE16) {
		memcpy(buf, "1: ????????????", 15);
		return 15 + hex(buf + 15, ip & 0xffff, 4);
	}
	if (size >= 20 && pkt->u.ip.ipc == PKT_IPC_UPDATE32) {
		memcpy(buf, "2: ????????", 11);
		return 11 + hex(buf + 11, ip & 0xffffffff, 8);
	}
	switch (pkt->u.ip.ipc) {
	case PKT_IPC_SUPPRESSED:
		return snprintf(buf, size, "0: ????????????????");
	case PKT_IPC_UPDATE16:
		return snprintf(buf, size, "1: ????????????%04" PRIx64, ip);
	case PKT_IPC_UPDATE32:
		return snprintf(buf, size, "2: ????????%08" PRIx64, ip);
	case PKT_IPC_UPDATE48:
		return snprintf(buf, size, "4: ????%012" PRIx64, ip);
	case PKT_IPC_SEXT48:
		return snprintf(buf, size, "3: %016" PRIx64,
				(uint64_t)((int64_t)(ip << 16) >> 16));
	default:
		return snprintf(buf, size, "%x: %016" PRIx64, pkt->u.ip.ipc, ip);
	}
}

static int fmt_tnt(char *buf, size_t size, const struct pkt *pkt)
{
	unsigned n = pkt->u.tnt.nbits, i;

	if (!size)
		return 0;
	for (i = 0; i < n && i + 1 < size; i++)
		buf[i] = (pkt->u.tnt.bits >> (n - 1 - i)) & 1 ? '!' : '.';
	buf[i] = 0;
	return (int)i;
}

static const char *pwrx_wake(const struct pkt *pkt)
{
	int n = pkt->u.pwrx.interrupt + pkt->u.pwrx.store +
		pkt->u.pwrx.autonomous;

	if (n != 1)
		return "bad";
	if (pkt->u.pwrx.interrupt)
		return "int";
	return pkt->u.pwrx.store ? " st" : " hw";
}

int dump_fmt_payload(char *buf, size_t size, const struct pkt *pkt)
{
	if (!size)
		return 0;
	buf[0] = 0;
	switch (pkt->type) {
	case PKT_TIP:
	case PKT_TIP_PGE:
	case PKT_TIP_PGD:
	case PKT_FUP:
		return fmt_ip(buf, size, pkt);
	case PKT_TNT8:
	case PKT_TNT64:
		return fmt_tnt(buf, size, pkt);
	case PKT_MODE_EXEC: {
		const char *csd = pkt->u.exec.csd ? "cs.d" : "";
		const char *csl = pkt->u.exec.csl ? "cs.l" : "";

		return snprintf(buf, size, "%s%s%s", csd,
				*csd && *csl ? ", " : "", csl);
	}
	case PKT_MODE_TSX: {
		const char *intx = pkt->u.tsx.intx ? "intx" : "";
		const char *abrt = pkt->u.tsx.abrt ? "abrt" : "";

		return snprintf(buf, size, "%s%s%s", intx,
				*intx && *abrt ? ", " : "", abrt);
	}
	case PKT_PIP:
		return snprintf(buf, size, "%" PRIx64 "%s", pkt->u.pip.cr3,
				pkt->u.pip.nr ? ", nr" : "");
	case PKT_VMCS:
		return snprintf(buf, size, "%" PRIx64, pkt->u.vmcs);
	case PKT_CBR:
		return fmt_hex(buf, size, pkt->u.cbr);
	case PKT_TSC:
		return fmt_hex(buf, size, pkt->u.tsc);
	case PKT_TMA:
		return snprintf(buf, size, "%x, %x", pkt->u.tma.ctc,
				pkt->u.tma.fc);
	case PKT_MTC:
		return fmt_hex(buf, size, pkt->u.mtc);
	case PKT_CYC:
		return fmt_hex(buf, size, pkt->u.cyc);
	case PKT_MNT:
		return snprintf(buf, size, "%" PRIx64, pkt->u.mnt);
	case PKT_EXSTOP:
		return snprintf(buf, size, "%s", pkt->u.exstop_ip ? "ip" : "");
	case PKT_MWAIT:
		return snprintf(buf, size, "%08x, %08x", pkt->u.mwait.hints,
				pkt->u.mwait.ext);
	case PKT_PWRE:
		return snprintf(buf, size, "c%u.%u%s",
				(pkt->u.pwre.state + 1) & 0xf,
				(pkt->u.pwre.sub_state + 1) & 0xf,
				pkt->u.pwre.hw ? ", hw" : "");
	case PKT_PWRX:
		return snprintf(buf, size, "%s: c%u, c%u", pwrx_wake(pkt),
				(pkt->u.pwrx.last + 1) & 0xf,
				(pkt->u.pwrx.deepest + 1) & 0xf);
	case PKT_PTW:
		return snprintf(buf, size, "%x: %" PRIx64 "%s", pkt->u.ptw.plc,
				pkt->u.ptw.payload, pkt->u.ptw.ip ? ", ip" : "");
	case PKT_CFE:
		return snprintf(buf, size, "%x: %x%s", pkt->u.cfe.type,
				pkt->u.cfe.vector, pkt->u.cfe.ip ? ", ip" : "");
	case PKT_EVD:
		return snprintf(buf, size, "%x: %" PRIx64, pkt->u.evd.type,
				pkt->u.evd.payload);
	case PKT_TRIG:
		if (pkt->u.trig.icntv)
			return snprintf(buf, size, "%x: %x%s%s", pkt->u.trig.trbv,
					pkt->u.trig.icnt,
					pkt->u.trig.mult ? ", mult" : "",
					pkt->u.trig.ip ? ", ip" : "");
		return snprintf(buf, size, "%x%s%s", pkt->u.trig.trbv,
				pkt->u.trig.mult ? ", mult" : "",
				pkt->u.trig.ip ? ", ip" : "");
	case PKT_BBP:
		return snprintf(buf, size, "sz%u, %x", pkt->u.bbp.sz ? 4 : 8,
				pkt->u.bbp.type);
	case PKT_BIP:
		return snprintf(buf, size, "%x: %" PRIx64, pkt->u.bip.id,
				pkt->u.bip.value);
	case PKT_BEP:
		return snprintf(buf, size, "%s", pkt->u.bep_ip ? "ip" : "");
	default:
		return 0;
	}
}

int dump_fmt_raw(char *buf, size_t size, const uint8_t *bytes, size_t n)
{
	size_t i, len = 0;

	if (!size)
		return 0;
	buf[0] = 0;
	for (i = 0; i < n && len + 2 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%02x", bytes[i]);
	return (int)len;
}

const char *dump_fmt_exec_mode(const struct pkt *pkt)
{
	if (pkt->u.exec.csl)
		return pkt->u.exec.csd ? "unknown" : "64-bit";
	return pkt->u.exec.csd ? "32-bit" : "16-bit";
}

int dump_fmt_hex(char *buf, uint64_t v, int width)
{
	return hex(buf, v, width);
}
