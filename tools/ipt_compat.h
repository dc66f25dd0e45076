/*
 * ipt_compat -- include libipt's <intel-pt.h> beside ptdec.h.
 *
 * Both name their error codes pte_*; libipt's are renamed ipt_pte_* here
 * (ipt_pte_eos, ...), so a file that compares our decoder with libipt's
 * can use both.  Include this before any ptbrowse header.
 */
#ifndef IPT_COMPAT_H
#define IPT_COMPAT_H

#ifdef PTDEC_H
#error "include ipt_compat.h before ptdec.h"
#endif

#define pte_ok ipt_pte_ok
#define pte_internal ipt_pte_internal
#define pte_invalid ipt_pte_invalid
#define pte_nosync ipt_pte_nosync
#define pte_bad_opc ipt_pte_bad_opc
#define pte_bad_packet ipt_pte_bad_packet
#define pte_bad_context ipt_pte_bad_context
#define pte_eos ipt_pte_eos
#define pte_bad_query ipt_pte_bad_query
#define pte_nomem ipt_pte_nomem
#define pte_bad_config ipt_pte_bad_config
#define pte_noip ipt_pte_noip
#define pte_ip_suppressed ipt_pte_ip_suppressed
#define pte_nomap ipt_pte_nomap
#define pte_bad_insn ipt_pte_bad_insn
#define pte_no_time ipt_pte_no_time
#define pte_no_cbr ipt_pte_no_cbr
#define pte_bad_image ipt_pte_bad_image
#define pte_bad_lock ipt_pte_bad_lock
#define pte_not_supported ipt_pte_not_supported
#define pte_retstack_empty ipt_pte_retstack_empty
#define pte_bad_retcomp ipt_pte_bad_retcomp
#define pte_bad_status_update ipt_pte_bad_status_update
#define pte_no_enable ipt_pte_no_enable
#define pte_event_ignored ipt_pte_event_ignored
#define pte_overflow ipt_pte_overflow
#define pte_bad_file ipt_pte_bad_file
#define pte_bad_cpu ipt_pte_bad_cpu

#include <intel-pt.h>

#undef pte_ok
#undef pte_internal
#undef pte_invalid
#undef pte_nosync
#undef pte_bad_opc
#undef pte_bad_packet
#undef pte_bad_context
#undef pte_eos
#undef pte_bad_query
#undef pte_nomem
#undef pte_bad_config
#undef pte_noip
#undef pte_ip_suppressed
#undef pte_nomap
#undef pte_bad_insn
#undef pte_no_time
#undef pte_no_cbr
#undef pte_bad_image
#undef pte_bad_lock
#undef pte_not_supported
#undef pte_retstack_empty
#undef pte_bad_retcomp
#undef pte_bad_status_update
#undef pte_no_enable
#undef pte_event_ignored
#undef pte_overflow
#undef pte_bad_file
#undef pte_bad_cpu

#endif /* IPT_COMPAT_H */
