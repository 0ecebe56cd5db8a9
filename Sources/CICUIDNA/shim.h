#ifndef NAVP_CICUIDNA_SHIM_H
#define NAVP_CICUIDNA_SHIM_H
/*
 * Minimal C surface for UTS #46 ToASCII via the system ICU (libicuuc).
 *
 * Only <unicode/uvernum.h> (version macros, no types) is included: ICU's type headers clash
 * with Foundation's bundled ICU module (_FoundationICU) when both are visible to Swift, so the
 * two entry points and the UIDNAInfo layout are declared here. U_ICU_ENTRY_POINT_RENAME adds
 * ICU's version suffix (e.g. uidna_openUTS46_72), so this tracks whatever ICU is installed.
 */
#include <stdint.h>
#include <unicode/uvernum.h>

/* Layout-compatible with ICU's UIDNAInfo (stable since ICU 4.6). */
typedef struct navp_uidna_info {
    int16_t size;
    int8_t isTransitionalDifferent;
    int8_t reservedB3;
    uint32_t errors;
    int32_t reservedI2;
    int32_t reservedI3;
} navp_uidna_info;

/* UErrorCode is a C enum (int-sized); <= 0 means success/warning. */
extern void *U_ICU_ENTRY_POINT_RENAME(uidna_openUTS46)(uint32_t options, int *pErrorCode);
extern int32_t U_ICU_ENTRY_POINT_RENAME(uidna_nameToASCII_UTF8)(const void *idna, const char *name, int32_t length,
                                                                char *dest, int32_t capacity,
                                                                navp_uidna_info *pInfo, int *pErrorCode);

/* Opens the shared UTS #46 processor: CheckBidi, CheckJoiners, nontransitional, no STD3 rules.
   (UIDNA_CHECK_BIDI 0x4 | UIDNA_CHECK_CONTEXTJ 0x8 | UIDNA_NONTRANSITIONAL_TO_ASCII 0x10 |
   UIDNA_NONTRANSITIONAL_TO_UNICODE 0x20.) The object is immutable and safe to use from many
   threads at once. Returns NULL on failure. */
static inline void *navp_idna_open(void) {
    int status = 0;
    void *idna = U_ICU_ENTRY_POINT_RENAME(uidna_openUTS46)(0x4 | 0x8 | 0x10 | 0x20, &status);
    return status > 0 ? (void *)0 : idna;
}

/* UTF-8 ToASCII. Returns the output length; a value > cap means "retry with that capacity"
   (U_BUFFER_OVERFLOW_ERROR = 15); -1 on any other ICU error. *errors gets UIDNAInfo.errors. */
static inline int32_t navp_idna_to_ascii(const void *idna, const char *src, int32_t len,
                                         char *dest, int32_t cap, uint32_t *errors) {
    int status = 0;
    navp_uidna_info info = { (int16_t)sizeof(navp_uidna_info), 0, 0, 0, 0, 0 };
    int32_t n = U_ICU_ENTRY_POINT_RENAME(uidna_nameToASCII_UTF8)(idna, src, len, dest, cap, &info, &status);
    *errors = info.errors;
    if (status == 15) return n > cap ? n : cap + 1;
    if (status > 0) return -1;
    return n;
}
#endif
