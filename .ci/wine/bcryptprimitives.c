/*
 * A stand-in for Windows' bcryptprimitives.dll, for Wine 8.0 (Debian 12),
 * which lacks it. Go programs for Windows (Go 1.24 and later) load it at
 * start-up for ProcessPrng and stop with "bcryptprimitives.dll not found"
 * without it. Real Windows (8 and later) has the DLL; this file is used only
 * by .ci/stages/15-cross.sh to run the Windows build under Wine.
 *
 * ProcessPrng fills data with cryptographically random bytes; here it asks
 * RtlGenRandom (advapi32's SystemFunction036), which Wine implements.
 */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
	while (size > 0) {
		ULONG n = size > 0x10000000 ? 0x10000000 : (ULONG)size;
		if (!RtlGenRandom(data, n))
			return FALSE;
		data += n;
		size -= n;
	}
	return TRUE;
}
