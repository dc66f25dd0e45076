/* error -- names of the decoder's error codes. */
#include "ptdec.h"

static const char *const messages[pte_max] = {
	[pte_ok] = "success",
	[pte_internal] = "internal error",
	[pte_invalid] = "invalid argument",
	[pte_eos] = "end of stream",
	[pte_truncated] = "truncated packet",
	[pte_bad_opc] = "unknown opcode",
	[pte_bad_packet] = "bad packet",
	[pte_bad_ipc] = "reserved IP compression",
	[pte_nosync] = "no PSB found",
	[pte_nomem] = "out of memory",
	[pte_io] = "I/O error",
	[pte_canceled] = "cancelled",
	[pte_bad_file] = "bad file format",
	[pte_no_time] = "no timing information",
	[pte_no_calib] = "no calibration",
	[pte_bad_config] = "bad configuration",
	[pte_sigbus] = "file shrank while mapped",
	[pte_gap] = "data lost (a gap in the trace)",
	[pte_nomap] = "no memory mapped at this address",
};

const char *pte_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= pte_max || !messages[err])
		return "unknown error";
	return messages[err];
}
