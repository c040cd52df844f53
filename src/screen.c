/* screen.c — a neighbour row screened four entries at a time (AVX2), or
 * eight (AVX-512F, 3D); see screen.h for what it answers and why the scan's
 * results keep their bits.
 * The kernel is predict.h's (the pair time of Alder & Wainwright, J. Chem.
 * Phys. 31, 459 (1959), with the rearranged root of Numerical Recipes 5.6).
 *
 * Four 64-byte hot records are read as eight 32-byte halves and transposed
 * (two 4 x 4 transposes of doubles) into one register a field; the images'
 * shifts likewise. Then each lane runs the scalar screen's arithmetic:
 *   dr = ((x_j + v_j (t_i - t_j)) - x_i) + shift,  dv = v_j - v_i,
 *   b = (dr0 dv0 + dr1 dv1) + dr2 dv2,  c = ((dr0^2 + dr1^2) + dr2^2) - (r_i + r_j)^2,
 *   may meet = !(b >= 0) & ((c <= 0) | !(c > b scale)),
 *   time = t + (b >= 0 ? inf : c <= 0 ? 0 : disc <= 0 ? inf : c / (sqrt(disc) - b)),
 *   disc = b^2 - |dv|^2 c,
 * the comparisons in their unordered forms where the scalar code negates an
 * ordered one, so NaNs answer as they do there. In 2D every z is zero and
 * the z terms are left out (screen.h says why no bit changes). Eight lanes
 * run the same operations on 512-bit registers: IEEE addition,
 * multiplication, division and square root round alike at every width, and
 * no fused multiply-add is asked for (-ffp-contract=off). */
#include "screen.h"

#include <assert.h>
#include <math.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SCREEN_AVX2 1
#define AVX2 __attribute__((target("avx2")))
#else
#define SCREEN_AVX2 0
#endif

int screen_supported(void)
{
#if SCREEN_AVX2
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 8;
    return __builtin_cpu_supports("avx2") ? 4 : 0;
#else
    return 0;
#endif
}

/* Eight lanes where they were measured faster: on AMD's Zen 5 they gave 2%
 * over four (this project's VM, N = 10,976, η = 0.45). On an Intel Xeon
 * lent for measurement four lanes ran 1.17 times as fast as eight (the
 * median of 14 concurrent pairs; 10 favoured four), as Intel's 512-bit
 * instructions lower the core's clock. The bits are the same either way. */
int screen_available(void)
{
    int lanes = screen_supported();
#if SCREEN_AVX2
    if (lanes == 8 && __builtin_cpu_is("intel")) return 4;
#endif
    return lanes;
}

#if SCREEN_AVX2
/* rows 0..3 of doubles -> columns 0..3 */
AVX2 static inline __attribute__((always_inline)) void transpose4(__m256d r0, __m256d r1, __m256d r2, __m256d r3,
                                                                  __m256d col[4])
{
    __m256d lo01 = _mm256_unpacklo_pd(r0, r1), hi01 = _mm256_unpackhi_pd(r0, r1);
    __m256d lo23 = _mm256_unpacklo_pd(r2, r3), hi23 = _mm256_unpackhi_pd(r2, r3);
    col[0] = _mm256_permute2f128_pd(lo01, lo23, 0x20);
    col[1] = _mm256_permute2f128_pd(hi01, hi23, 0x20);
    col[2] = _mm256_permute2f128_pd(lo01, lo23, 0x31);
    col[3] = _mm256_permute2f128_pd(hi01, hi23, 0x31);
}

/* The four bits of entries e[0..3], and into time[0..3] each pair's time
 * of contact; behind: a is not at the clock, and each pair is brought to the
 * later of its two times first. */
AVX2 static inline __attribute__((always_inline)) uint32_t screen_four(const body_hot *hot,
                                                                       const double (*shift4)[4],
                                                                       const int32_t e[4], const screen_body *a,
                                                                       double time[4], __m256d *times,
                                                                       const int behind, const int dim)
{
    enum { IMAGE_MASK = (1 << NEIGHBOURS_IMAGE_BITS) - 1 };
    __m256d lo[4], hi[4], image[4], f[4], g[4], sh[4];
    for (int l = 0; l < 4; l++) {
        const double *rec = hot[e[l] >> NEIGHBOURS_IMAGE_BITS].x;
        lo[l] = _mm256_loadu_pd(rec);
        hi[l] = _mm256_loadu_pd(rec + 4);
        image[l] = _mm256_loadu_pd(shift4[e[l] & IMAGE_MASK]);
    }
    transpose4(lo[0], lo[1], lo[2], lo[3], f); /* x0 x1 x2 v0 */
    transpose4(hi[0], hi[1], hi[2], hi[3], g); /* v1 v2 t r */
    transpose4(image[0], image[1], image[2], image[3], sh); /* s0 s1 s2 - */
    const __m256d v[3] = {f[3], g[0], g[1]}, t_a = _mm256_set1_pd(a->t), t_b = g[2];
    /* behind: t = t_b <= t_a ? t_a : t_b, as the scalar scan chooses */
    __m256d t = behind ? _mm256_blendv_pd(t_b, t_a, _mm256_cmp_pd(t_b, t_a, _CMP_LE_OQ)) : t_a;
    __m256d dta = _mm256_sub_pd(t, t_a), dtb = _mm256_sub_pd(t, t_b), dr[3], dv[3];
    for (int k = 0; k < dim; k++) {
        __m256d x_a = _mm256_set1_pd(a->x[k]), v_a = _mm256_set1_pd(a->v[k]);
        __m256d moved_b = _mm256_add_pd(f[k], _mm256_mul_pd(v[k], dtb));
        __m256d moved_a = behind ? _mm256_add_pd(x_a, _mm256_mul_pd(v_a, dta)) : x_a;
        dr[k] = _mm256_add_pd(_mm256_sub_pd(moved_b, moved_a), sh[k]);
        dv[k] = _mm256_sub_pd(v[k], v_a);
    }
    __m256d b = _mm256_add_pd(_mm256_mul_pd(dr[0], dv[0]), _mm256_mul_pd(dr[1], dv[1]));
    __m256d r2 = _mm256_add_pd(_mm256_mul_pd(dr[0], dr[0]), _mm256_mul_pd(dr[1], dr[1]));
    if (dim == 3) {
        b = _mm256_add_pd(b, _mm256_mul_pd(dr[2], dv[2]));
        r2 = _mm256_add_pd(r2, _mm256_mul_pd(dr[2], dr[2]));
    }
    __m256d sigma = _mm256_add_pd(_mm256_set1_pd(a->radius), g[3]);
    __m256d c = _mm256_sub_pd(r2, _mm256_mul_pd(sigma, sigma));
    /* the horizon's threshold: b scale at the clock; behind, as
     * predict_pair_may_meet rounds it, -2 b (horizon - t) (1 + 1e-9) */
    __m256d threshold = behind ? _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(-2.0), b),
                                                             _mm256_sub_pd(_mm256_set1_pd(a->horizon), t)),
                                               _mm256_set1_pd(1.0 + 1e-9))
                               : _mm256_mul_pd(b, _mm256_set1_pd(a->scale));
    __m256d zero = _mm256_setzero_pd();
    __m256d approaching = _mm256_cmp_pd(b, zero, _CMP_NGE_UQ);
    __m256d touching = _mm256_cmp_pd(c, zero, _CMP_LE_OQ);
    __m256d within = _mm256_cmp_pd(c, threshold, _CMP_NGT_UQ);
    /* predict_pair's time, operation for operation: receding or parallel
     * (b >= 0), never; touching, now; a discriminant <= 0, never; else
     * c / (-b + sqrt(b^2 - a c)), a = |dv|^2 (-b + s is s - b, bit for bit) */
    __m256d dv2 = _mm256_add_pd(_mm256_mul_pd(dv[0], dv[0]), _mm256_mul_pd(dv[1], dv[1]));
    if (dim == 3) dv2 = _mm256_add_pd(dv2, _mm256_mul_pd(dv[2], dv[2]));
    __m256d disc = _mm256_sub_pd(_mm256_mul_pd(b, b), _mm256_mul_pd(dv2, c)), never = _mm256_set1_pd(INFINITY);
    __m256d s = _mm256_div_pd(c, _mm256_sub_pd(_mm256_sqrt_pd(disc), b));
    s = _mm256_blendv_pd(s, never, _mm256_cmp_pd(disc, zero, _CMP_LE_OQ));
    s = _mm256_blendv_pd(s, zero, touching);
    s = _mm256_blendv_pd(s, never, _mm256_cmp_pd(b, zero, _CMP_GE_OQ));
    *times = _mm256_add_pd(t, s);
    _mm256_storeu_pd(time, *times);
    return (uint32_t)_mm256_movemask_pd(_mm256_and_pd(approaching, _mm256_or_pd(touching, within)));
}

/* The end of earliest_of at either width: of the entries at the row's
 * earliest time (mask), those of the row, and none unless that time is
 * finite and no later than limit. */
static inline uint32_t earliest_bits(uint32_t mask, int count, double earliest, double limit)
{
    uint32_t keep = (uint32_t)((earliest <= limit) & (earliest < INFINITY));
    return mask & (count < 32 ? (1u << count) - 1 : ~0u) & (0u - keep);
}

/* A row's last group of lanes entries from entries[k] (k < count), each
 * place past the row filled with entries[k]: its bits are dropped, and its
 * time repeats one of the row's. */
static inline void fill_tail(const int32_t *entries, int k, int count, int lanes, int32_t *tail)
{
    for (int l = 0; l < lanes; l++) tail[l] = entries[k + l < count ? k + l : k];
}

/* nearest: the entries (k < count) whose time is the earliest of the row,
 * where that time is finite and no later than limit; least holds each
 * lane's earliest time (a NaN never is). */
AVX2 static inline __attribute__((always_inline)) uint32_t earliest_of(const double *time, int count, __m256d least,
                                                                       double limit)
{
    least = _mm256_min_pd(least, _mm256_permute2f128_pd(least, least, 0x01));
    least = _mm256_min_pd(least, _mm256_shuffle_pd(least, least, 0x5));
    double earliest = _mm256_cvtsd_f64(least);
    __m256d at = _mm256_set1_pd(earliest);
    uint32_t mask = 0;
    for (int k = 0; k < count; k += 4)
        mask |= (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(time + k), at, _CMP_EQ_OQ)) << k;
    return earliest_bits(mask, count, earliest, limit);
}

AVX2 static inline __attribute__((always_inline)) uint32_t screen_entries(const body_hot *hot,
                                                                          const double (*shift4)[4],
                                                                          const int32_t *entries, int count,
                                                                          const screen_body *a, double *time,
                                                                          const int behind, const int nearest,
                                                                          const int dim)
{
    assert(count >= 0 && count <= SCREEN_MAX);
    uint32_t mask = 0;
    __m256d times, least = _mm256_set1_pd(INFINITY);
    int k = 0;
    for (; k + 4 <= count; k += 4) {
        mask |= screen_four(hot, shift4, entries + k, a, time + k, &times, behind, dim) << k;
        least = _mm256_min_pd(times, least);
    }
    if (k < count) { /* the tail, filled with its first entry (whose extra bits are dropped) */
        int32_t tail[4];
        fill_tail(entries, k, count, 4, tail);
        mask |= (screen_four(hot, shift4, tail, a, time + k, &times, behind, dim) & ((1u << (count - k)) - 1)) << k;
        least = _mm256_min_pd(times, least); /* the filler repeats a time of the row */
    }
    return nearest ? earliest_of(time, count, least, a->limit) : mask;
}

/* ---- eight lanes (AVX-512F): the same operations on eight entries ---- */
#define AVX512 __attribute__((target("avx512f")))

/* rows r[0..7] of eight doubles -> columns c[0..7] (three rounds of shuffles) */
AVX512 static inline __attribute__((always_inline)) void transpose8(const __m512d r[8], __m512d c[8])
{
    __m512d t[8], u[8];
    for (int k = 0; k < 4; k++) {
        t[2 * k] = _mm512_unpacklo_pd(r[2 * k], r[2 * k + 1]);     /* r_2k[0] r_2k+1[0] | [2] | [4] | [6] */
        t[2 * k + 1] = _mm512_unpackhi_pd(r[2 * k], r[2 * k + 1]); /* the odd fields */
    }
    for (int h = 0; h < 2; h++) { /* rows 0-3, then 4-7 */
        u[4 * h + 0] = _mm512_shuffle_f64x2(t[4 * h], t[4 * h + 2], 0x88);     /* fields 0, 4 */
        u[4 * h + 1] = _mm512_shuffle_f64x2(t[4 * h], t[4 * h + 2], 0xDD);     /* fields 2, 6 */
        u[4 * h + 2] = _mm512_shuffle_f64x2(t[4 * h + 1], t[4 * h + 3], 0x88); /* fields 1, 5 */
        u[4 * h + 3] = _mm512_shuffle_f64x2(t[4 * h + 1], t[4 * h + 3], 0xDD); /* fields 3, 7 */
    }
    static const int field_of[4][2] = {{0, 4}, {2, 6}, {1, 5}, {3, 7}};
    for (int m = 0; m < 4; m++) {
        c[field_of[m][0]] = _mm512_shuffle_f64x2(u[m], u[4 + m], 0x88);
        c[field_of[m][1]] = _mm512_shuffle_f64x2(u[m], u[4 + m], 0xDD);
    }
}

/* The images' shifts of entries e[0..7], one register an axis: the padded
 * shifts two to a register, then two rounds of permutations (a gather was
 * slower here than the whole screen in four lanes). */
AVX512 static inline __attribute__((always_inline)) void images8(const double (*shift4)[4], const int32_t e[8],
                                                                 __m512d sh[3])
{
    enum { IMAGE_MASK = (1 << NEIGHBOURS_IMAGE_BITS) - 1 };
    __m512d z[4], fields01[2], fields23[2];
    for (int m = 0; m < 4; m++)
        z[m] = _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(shift4[e[2 * m] & IMAGE_MASK])),
                                  _mm256_loadu_pd(shift4[e[2 * m + 1] & IMAGE_MASK]), 1);
    /* of four entries: field 0 in the low half, field 1 in the high; fields 2 and 3 likewise */
    const __m512i pick01 = _mm512_set_epi64(13, 9, 5, 1, 12, 8, 4, 0);
    const __m512i pick23 = _mm512_set_epi64(15, 11, 7, 3, 14, 10, 6, 2);
    for (int h = 0; h < 2; h++) {
        fields01[h] = _mm512_permutex2var_pd(z[2 * h], pick01, z[2 * h + 1]);
        fields23[h] = _mm512_permutex2var_pd(z[2 * h], pick23, z[2 * h + 1]);
    }
    sh[0] = _mm512_shuffle_f64x2(fields01[0], fields01[1], 0x44);
    sh[1] = _mm512_shuffle_f64x2(fields01[0], fields01[1], 0xEE);
    sh[2] = _mm512_shuffle_f64x2(fields23[0], fields23[1], 0x44);
}

/* screen_four's bits and times (in 3D) for the eight entries e[0..7], by
 * the same operations in the same order (a mask register where it has a
 * mask). */
AVX512 static inline __attribute__((always_inline)) uint32_t screen_eight(const body_hot *hot,
                                                                         const double (*shift4)[4],
                                                                         const int32_t e[8], const screen_body *a,
                                                                         double time[8], __m512d *times,
                                                                         const int behind)
{
    __m512d rec[8], f[8], sh[3];
    for (int l = 0; l < 8; l++) rec[l] = _mm512_loadu_pd(hot[e[l] >> NEIGHBOURS_IMAGE_BITS].x);
    transpose8(rec, f); /* x0 x1 x2 v0 v1 v2 t r */
    images8(shift4, e, sh);
    const __m512d v[3] = {f[3], f[4], f[5]}, t_a = _mm512_set1_pd(a->t), t_b = f[6];
    __m512d t = behind ? _mm512_mask_blend_pd(_mm512_cmp_pd_mask(t_b, t_a, _CMP_LE_OQ), t_b, t_a) : t_a;
    __m512d dta = _mm512_sub_pd(t, t_a), dtb = _mm512_sub_pd(t, t_b), dr[3], dv[3];
    for (int k = 0; k < 3; k++) {
        __m512d x_a = _mm512_set1_pd(a->x[k]), v_a = _mm512_set1_pd(a->v[k]);
        __m512d moved_b = _mm512_add_pd(f[k], _mm512_mul_pd(v[k], dtb));
        __m512d moved_a = behind ? _mm512_add_pd(x_a, _mm512_mul_pd(v_a, dta)) : x_a;
        dr[k] = _mm512_add_pd(_mm512_sub_pd(moved_b, moved_a), sh[k]);
        dv[k] = _mm512_sub_pd(v[k], v_a);
    }
    __m512d b = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dr[0], dv[0]), _mm512_mul_pd(dr[1], dv[1])),
                              _mm512_mul_pd(dr[2], dv[2]));
    __m512d r2 = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dr[0], dr[0]), _mm512_mul_pd(dr[1], dr[1])),
                               _mm512_mul_pd(dr[2], dr[2]));
    __m512d sigma = _mm512_add_pd(_mm512_set1_pd(a->radius), f[7]);
    __m512d c = _mm512_sub_pd(r2, _mm512_mul_pd(sigma, sigma));
    __m512d threshold = behind ? _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(-2.0), b),
                                                             _mm512_sub_pd(_mm512_set1_pd(a->horizon), t)),
                                               _mm512_set1_pd(1.0 + 1e-9))
                               : _mm512_mul_pd(b, _mm512_set1_pd(a->scale));
    __m512d zero = _mm512_setzero_pd();
    __mmask8 approaching = _mm512_cmp_pd_mask(b, zero, _CMP_NGE_UQ);
    __mmask8 touching = _mm512_cmp_pd_mask(c, zero, _CMP_LE_OQ);
    __mmask8 within = _mm512_cmp_pd_mask(c, threshold, _CMP_NGT_UQ);
    __m512d never = _mm512_set1_pd(INFINITY);
    __m512d dv2 = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dv[0], dv[0]), _mm512_mul_pd(dv[1], dv[1])),
                                _mm512_mul_pd(dv[2], dv[2]));
    __m512d disc = _mm512_sub_pd(_mm512_mul_pd(b, b), _mm512_mul_pd(dv2, c));
    __m512d s = _mm512_div_pd(c, _mm512_sub_pd(_mm512_sqrt_pd(disc), b));
    s = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(disc, zero, _CMP_LE_OQ), s, never);
    s = _mm512_mask_blend_pd(touching, s, zero);
    s = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(b, zero, _CMP_GE_OQ), s, never);
    *times = _mm512_add_pd(t, s);
    _mm512_storeu_pd(time, *times);
    return (uint32_t)(approaching & (touching | within));
}

/* earliest_of over eight lanes: the eight least times are folded to four
 * first. least never holds a NaN, so the folding's order changes no answer
 * (at most the sign of a zero least, which == and <= take alike). */
AVX512 static inline __attribute__((always_inline)) uint32_t earliest_of8(const double *time, int count,
                                                                         __m512d least, double limit)
{
    __m256d half = _mm256_min_pd(_mm512_castpd512_pd256(least), _mm512_extractf64x4_pd(least, 1));
    half = _mm256_min_pd(half, _mm256_permute2f128_pd(half, half, 0x01));
    half = _mm256_min_pd(half, _mm256_shuffle_pd(half, half, 0x5));
    double earliest = _mm256_cvtsd_f64(half);
    __m512d at = _mm512_set1_pd(earliest);
    uint32_t mask = 0;
    for (int k = 0; k < count; k += 8)
        mask |= (uint32_t)_mm512_cmp_pd_mask(_mm512_loadu_pd(time + k), at, _CMP_EQ_OQ) << k;
    return earliest_bits(mask, count, earliest, limit);
}

/* screen_entries eight at a time; a row of four entries or fewer, and a last
 * group of four or fewer, in four lanes (the group's other four times set
 * to never, so that the row's times are whole groups of eight). */
AVX512 static inline __attribute__((always_inline)) uint32_t screen_entries8(const body_hot *hot,
                                                                            const double (*shift4)[4],
                                                                            const int32_t *entries, int count,
                                                                            const screen_body *a, double *time,
                                                                            const int behind, const int nearest)
{
    assert(count >= 0 && count <= SCREEN_MAX);
    if (count <= 4) return screen_entries(hot, shift4, entries, count, a, time, behind, nearest, 3); /* one group */
    uint32_t mask = 0;
    __m512d times, least = _mm512_set1_pd(INFINITY);
    int k = 0;
    for (; k + 8 <= count; k += 8) {
        mask |= screen_eight(hot, shift4, entries + k, a, time + k, &times, behind) << k;
        least = _mm512_min_pd(times, least);
    }
    if (count - k > 4) { /* the tail, filled with its first entry (whose extra bits are dropped) */
        int32_t tail[8];
        fill_tail(entries, k, count, 8, tail);
        mask |= (screen_eight(hot, shift4, tail, a, time + k, &times, behind) & ((1u << (count - k)) - 1)) << k;
        least = _mm512_min_pd(times, least);
    } else if (k < count) { /* a short tail, likewise filled, in four lanes */
        int32_t tail[4];
        __m256d times4;
        fill_tail(entries, k, count, 4, tail);
        mask |= (screen_four(hot, shift4, tail, a, time + k, &times4, behind, 3) & ((1u << (count - k)) - 1)) << k;
        _mm256_storeu_pd(time + k + 4, _mm256_set1_pd(INFINITY));
        least = _mm512_min_pd(_mm512_insertf64x4(_mm512_castpd256_pd512(times4), _mm256_set1_pd(INFINITY), 1), least);
    }
    return nearest ? earliest_of8(time, count, least, a->limit) : mask;
}

/* The two entry points of eight lanes, 3D only. */
#define SCREEN_ENTRY8(name, behind)                                                                          \
    AVX512 uint32_t name(const body_hot *hot, const double (*shift4)[4], const int32_t *entries, int count,    \
                         const screen_body *a, double time[SCREEN_TIMES], int nearest)                       \
    {                                                                                                        \
        return nearest ? screen_entries8(hot, shift4, entries, count, a, time, behind, 1)                   \
                       : screen_entries8(hot, shift4, entries, count, a, time, behind, 0);                  \
    }
SCREEN_ENTRY8(screen_row8, 0)
SCREEN_ENTRY8(screen_row8_behind, 1)

/* The four entry points: at the clock or behind it, in 3D or in 2D. */
#define SCREEN_ENTRY(name, behind, dim)                                                                      \
    AVX2 uint32_t name(const body_hot *hot, const double (*shift4)[4], const int32_t *entries, int count,      \
                       const screen_body *a, double time[SCREEN_TIMES], int nearest)                         \
    {                                                                                                        \
        return nearest ? screen_entries(hot, shift4, entries, count, a, time, behind, 1, dim)               \
                       : screen_entries(hot, shift4, entries, count, a, time, behind, 0, dim);              \
    }
SCREEN_ENTRY(screen_row, 0, 3)
SCREEN_ENTRY(screen_row_behind, 1, 3)
SCREEN_ENTRY(screen_row_2d, 0, 2)
SCREEN_ENTRY(screen_row_behind_2d, 1, 2)
#else
static uint32_t unavailable(const body_hot *hot, const double (*shift4)[4], const int32_t *entries, int count,
                            const screen_body *a, double *time)
{
    (void)hot, (void)shift4, (void)entries, (void)count, (void)a, (void)time;
    assert(!"a screen without AVX2");
    return 0;
}

#define SCREEN_ENTRY(name)                                                                                   \
    uint32_t name(const body_hot *hot, const double (*shift4)[4], const int32_t *entries, int count,           \
                  const screen_body *a, double time[SCREEN_TIMES], int nearest)                              \
    {                                                                                                        \
        (void)nearest;                                                                                       \
        return unavailable(hot, shift4, entries, count, a, time);                                            \
    }
SCREEN_ENTRY(screen_row)
SCREEN_ENTRY(screen_row_behind)
SCREEN_ENTRY(screen_row_2d)
SCREEN_ENTRY(screen_row_behind_2d)
SCREEN_ENTRY(screen_row8)
SCREEN_ENTRY(screen_row8_behind)
#endif
