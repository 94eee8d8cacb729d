/* banks.h - shared memory bank model: wavefronts and bank conflicts per
 * warp-level access.
 *
 * See the comment at the top of banks.c for the modelling assumptions.
 * Terms: a "word" is arch->bank_bytes bytes (word index = byte offset /
 * bank_bytes), its bank is word index mod arch->banks; a "phase" is the
 * group of lanes served together (lanes per phase = phase_bytes / width,
 * clamped to 1..warp_size; paired_load_phase_bytes / width for a "paired"
 * load, one in which every active lane pair (2k, 2k+1) reads one address).
 * Both functions are pure (no global state, no allocation) and honour any
 * MsArch that passes ms_banks_arch_check().
 */
#pragma once

#include <glib.h>

#include "access.h"
#include "arch.h"
#include "model.h"

G_BEGIN_DECLS

#define MS_BANKS_MAX_BANKS      64            /* arch->banks <= this */
#define MS_BANKS_MAX_LANE_WORDS 8             /* words one lane may touch */
#define MS_BANKS_MAX_PHASES     MS_WARP_SIZE  /* phases of one access */
#define MS_BANKS_MAX_WORDS      (MS_WARP_SIZE * MS_BANKS_MAX_LANE_WORDS)

typedef struct {
  guint wavefronts;   /* sum over phases of max over banks of distinct words
                       * requested in that bank */
  guint ideal;        /* phases with >= 1 active lane (>= 1 when mask != 0) */
  guint excessive;    /* wavefronts - ideal: Nsight's "bank conflicts" */
  guint phases;       /* lane groups the access is split into (1, 2 or 4 on
                       * sm_90: 8-byte 2, 16-byte 4, paired 8-byte loads 1,
                       * paired 16-byte loads 2); 0 when mask == 0 */
} MsSharedCost;

/* Fills (overwrites) *cost.  mask == 0 -> all fields 0.  Lanes at or above
 * arch->warp_size are ignored. */
void ms_banks_cost (const MsArch *arch, const MsWarpAccess *a,
                    MsSharedCost *cost);

/* Adds cost b into the running total *sum. */
void ms_shared_cost_add (MsSharedCost *sum, const MsSharedCost *b);

/* ---- Detail of one access, for diagrams and explanations ---- */

/* One lane. */
typedef struct {
  gint8 phase;        /* the phase this lane belongs to; -1 = inactive lane */
  guint8 n_words;     /* words the lane touches: width / bank_bytes rounded
                       * up, +1 if misaligned; 0 when inactive */
  guint16 degree;     /* max over the lane's banks of the distinct words its
                       * phase requests in that bank: the "n" of the n-way
                       * conflict the lane is part of (1 = conflict-free) */
  guint64 word[MS_BANKS_MAX_LANE_WORDS];      /* word indices, ascending */
  guint8 bank[MS_BANKS_MAX_LANE_WORDS];       /* bank of each word */
  guint16 wave[MS_BANKS_MAX_LANE_WORDS];      /* 0-based wavefront of the
                                               * phase serving the word (its
                                               * rank in its bank, see below) */
  guint16 entry[MS_BANKS_MAX_LANE_WORDS];     /* index in MsBankDetail.words */
  gboolean broadcast[MS_BANKS_MAX_LANE_WORDS]; /* another active lane of the
                                                * same phase requests the
                                                * same word */
} MsBankLane;

/* One distinct word requested by a phase. */
typedef struct {
  guint64 word;       /* word index */
  guint8 phase;
  guint8 bank;
  guint8 lanes;       /* active lanes of the phase requesting it (> 1 =
                       * broadcast) */
  guint16 rank;       /* 0-based position among the distinct words of its
                       * bank in its phase, in ascending word order: the
                       * wavefront that serves it (the hardware's order is
                       * unknown; the count is what the model claims) */
} MsBankWord;

/* One phase. */
typedef struct {
  guint first_lane;   /* lanes first_lane .. first_lane + n_lanes - 1 */
  guint n_lanes;
  guint32 active;     /* active lanes of this phase (bit l = lane l) */
  guint wavefronts;   /* max over banks of bank_words[]; 0 when no lane active */
  guint first_word;   /* its distinct words: words[first_word ..
                       * first_word + n_words - 1], sorted by bank, word */
  guint n_words;
  guint16 bank_words[MS_BANKS_MAX_BANKS]; /* distinct words per bank */
  guint16 bank_first[MS_BANKS_MAX_BANKS]; /* index in words[] of the bank's
                                           * first word (valid when
                                           * bank_words[b] > 0) */
} MsBankPhase;

typedef struct {
  MsSharedCost cost;            /* == ms_banks_cost() */
  guint banks;                  /* arch->banks: valid entries of bank arrays */
  guint bank_bytes;             /* arch->bank_bytes */
  guint lanes_per_phase;        /* of this access (doubled for a paired load;
                                 * for a mixed one, that of its unpaired
                                 * groups: phase[] has each phase's lanes) */
  gboolean paired;              /* a load in which every active lane pair (2k,
                                 * 2k+1) of the warp, or of some group of
                                 * paired_load_phase_bytes / width lanes,
                                 * reads one address, so it (that group) went
                                 * in the larger phases of
                                 * arch->paired_load_phase_bytes (set only
                                 * where that changes the split) */
  guint width;                  /* a->width */
  MsBankLane lane[MS_WARP_SIZE];
  MsBankPhase phase[MS_BANKS_MAX_PHASES]; /* cost.phases valid entries */
  guint n_words;
  MsBankWord words[MS_BANKS_MAX_WORDS];   /* by phase, bank, word */
} MsBankDetail;

/* Fills (overwrites) *detail; about 16 KiB, fine on the stack.  Not for the
 * hot loop (it is simple, not fast). */
void ms_banks_detail (const MsArch *arch, const MsWarpAccess *a,
                      MsBankDetail *detail);

/* Whether the model can work with this architecture: warp_size in
 * 1..MS_WARP_SIZE, banks in 1..MS_BANKS_MAX_BANKS, bank_bytes >= 1 and
 * small enough that a 16-byte lane touches at most MS_BANKS_MAX_LANE_WORDS
 * words (bank_bytes >= 3), phase_bytes >= 1, paired_load_phase_bytes >= 0
 * (0 = phase_bytes).  For the loader of
 * architecture description files; the cost functions assume a checked
 * arch. */
gboolean ms_banks_arch_check (const MsArch *arch, GError **error);

/* The model-table entry (models.c). */
extern const MsModel ms_model_banks;

G_END_DECLS
