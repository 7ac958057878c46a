/* tsr_axi_mem.h: cycle-accurate AXI4 slave memory model with a protocol checker, in plain C. */
#ifndef TSR_AXI_MEM_H
#define TSR_AXI_MEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The model knows nothing about Verilator: once per clock cycle the caller
 * hands it the master's outputs as they are just before the rising edge
 * (tsr_axi_req_t) and gets back the slave outputs for the next cycle
 * (tsr_axi_rsp_t). Those outputs are registers of the model: they depend on
 * its state only, never combinationally on the request of the same cycle.
 *
 * Behaviour:
 *  - byte-addressed memory at address 0, INCR bursts of bus-width beats,
 *    several read and write bursts outstanding, answered in order;
 *  - read latency: cycles from the AR handshake to the first R beat;
 *    write latency: cycles from the last W beat to the B response (min 1);
 *  - an optional bandwidth cap (token bucket shared by R and W beats);
 *  - optional random stalls on every channel from a seeded xorshift PRNG;
 *  - SLVERR for bursts touching an error range, DECERR for bursts beyond the
 *    memory; erroneous writes are not performed, erroneous reads return 0;
 *  - W beats are accepted only for a burst whose AW was accepted (legal: a
 *    slave may wait for AW before raising WREADY);
 *  - AXI rule checks on AR, AW and W, counted per kind (tsr_axi_viol_t);
 *  - injected faults (tsr_axi_mem_set_faults): SLVERR/DECERR on a chosen or
 *    random beat of a read burst or on the B of a write burst, and R beats /
 *    B responses held back by up to thousands of cycles, all in order. */

/** Widest data bus the model supports, in bytes (128 bits). */
#define TSR_AXI_MEM_MAX_BYTES 16u
/** Bursts that can be outstanding per direction (accepted, response not done). */
#define TSR_AXI_MEM_MAX_OUTSTANDING 16u

/** AXI response codes. */
enum { TSR_AXI_OKAY = 0, TSR_AXI_EXOKAY = 1, TSR_AXI_SLVERR = 2, TSR_AXI_DECERR = 3 };

/** AXI burst type INCR, the only one the model accepts. */
#define TSR_AXI_BURST_INCR 1u

/** Master -> slave signals, sampled just before a rising edge. */
typedef struct tsr_axi_req {
  uint32_t awaddr;
  uint8_t awvalid, awlen, awsize, awburst;
  uint8_t wvalid, wlast;
  uint16_t wstrb;                           /**< bit i qualifies wdata[i] */
  uint8_t wdata[TSR_AXI_MEM_MAX_BYTES];     /**< byte i = bits 8i+7:8i of the bus */
  uint8_t bready;
  uint32_t araddr;
  uint8_t arvalid, arlen, arsize, arburst;
  uint8_t rready;
} tsr_axi_req_t;

/** Slave -> master signals, driven by the model for one whole cycle. */
typedef struct tsr_axi_rsp {
  uint8_t awready, wready;
  uint8_t bvalid, bresp;
  uint8_t arready;
  uint8_t rvalid, rresp, rlast;
  uint8_t rdata[TSR_AXI_MEM_MAX_BYTES];
} tsr_axi_rsp_t;

/** Kinds of AXI rule violations the checker counts. */
typedef enum tsr_axi_viol {
  TSR_AXI_VIOL_AR_4K = 0,      /**< read burst crosses a 4 KiB boundary */
  TSR_AXI_VIOL_AW_4K,          /**< write burst crosses a 4 KiB boundary */
  TSR_AXI_VIOL_AR_BURST,       /**< arburst is not INCR */
  TSR_AXI_VIOL_AW_BURST,       /**< awburst is not INCR */
  TSR_AXI_VIOL_AR_SIZE,        /**< arsize is not the bus width */
  TSR_AXI_VIOL_AW_SIZE,        /**< awsize is not the bus width */
  TSR_AXI_VIOL_WLAST,          /**< WLAST not exactly on beat awlen+1 */
  TSR_AXI_VIOL_AR_UNSTABLE,    /**< ARVALID dropped or AR payload changed before ARREADY */
  TSR_AXI_VIOL_AW_UNSTABLE,    /**< AWVALID dropped or AW payload changed before AWREADY */
  TSR_AXI_VIOL_W_UNSTABLE,     /**< WVALID dropped or W payload changed before WREADY */
  TSR_AXI_VIOL_COUNT
} tsr_axi_viol_t;

/** Settings of one memory model. */
typedef struct tsr_axi_mem_cfg {
  uint64_t mem_size;          /**< bytes, 1..4 GiB */
  unsigned bus_bytes;         /**< data bus width in bytes: 4, 8 or 16 */
  unsigned rd_latency;        /**< AR handshake -> first R beat, cycles (0 counts as 1) */
  unsigned wr_latency;        /**< last W beat -> B, cycles (0 counts as 1) */
  unsigned bytes_per_cycle;   /**< shared R+W bandwidth cap; 0 = none (one beat per channel per cycle) */
  unsigned stall_pct;         /**< 0..100 chance per cycle that a channel withholds ready/valid */
  uint32_t seed;              /**< PRNG seed of the stalls */
  uint64_t err_base;          /**< first byte answering SLVERR */
  uint64_t err_size;          /**< bytes in the SLVERR range, 0 = none */
  unsigned max_reports;       /**< protocol errors printed to stderr (later ones only counted) */
} tsr_axi_mem_cfg_t;

/** Bus faults the memory model injects (tsr_axi_mem_set_faults, tsr_sim_set_faults). All zero: none.
 *  Faults never reorder anything: bursts still answer in order, and a read
 *  burst keeps all its beats (only the RRESP of one beat changes). */
typedef struct tsr_axi_faults {
  uint32_t rd_burst;   /**< 1-based: the n-th read burst accepted after the call answers one beat
                            with `resp` (0 = none) */
  uint32_t rd_beat;    /**< 0-based beat of that burst (past its last beat: the last beat) */
  uint32_t wr_burst;   /**< 1-based: the n-th write burst after the call answers B with `resp`
                            and writes nothing (0 = none) */
  uint32_t resp;       /**< 2 SLVERR or 3 DECERR (any other value: SLVERR) */
  uint32_t rand_pct;   /**< 0..100: chance that any burst gets such an error (random beat) */
  uint32_t delay_pct;  /**< 0..100: chance that an R beat or a B response is held back... */
  uint32_t delay_max;  /**< ...by 1..delay_max extra cycles */
  uint32_t seed;       /**< seed of the random choices (independent of cfg.seed) */
} tsr_axi_faults_t;

/** What the memory model answered with an error since the last tsr_axi_mem_set_faults
 *  (injected faults and the cfg.err_base range and DECERR beyond memory alike). */
typedef struct tsr_axi_fault_log {
  uint64_t rd_err_bursts;  /**< read bursts with at least one error beat sent */
  uint64_t wr_err_bursts;  /**< write bursts answered with an error B */
  uint32_t rd_first_addr;  /**< ARADDR of the first read burst that sent an error beat */
  uint32_t wr_first_addr;  /**< AWADDR of the first write burst answered with an error */
  uint64_t delays;         /**< responses held back */
} tsr_axi_fault_log_t;

/** Traffic and protocol statistics of the memory model. */
typedef struct tsr_axi_mem_stats {
  uint64_t rd_beats, wr_beats;      /**< data beats accepted */
  uint64_t rd_bursts, wr_bursts;    /**< AR / AW handshakes */
  uint64_t err_resps;               /**< SLVERR/DECERR responses sent */
  uint64_t protocol_errors;         /**< AXI rule violations seen (4 KiB crossing, WLAST mismatch, ...) */
  uint64_t rd_outside, wr_outside;  /**< AR / AW bursts whose beats leave the guard range */
  uint32_t outside_first;           /**< address of the first such burst */
} tsr_axi_mem_stats_t;
typedef struct tsr_axi_mem tsr_axi_mem_t;

/** Fill `cfg` with defaults: 64 MiB, 8-byte bus, latencies 10, no cap, no stalls, 8 reports. */
void tsr_axi_mem_cfg_default(tsr_axi_mem_cfg_t *cfg);

/** Allocate a zero-filled model. NULL (with a message on stderr) on a bad
 *  setting or when memory is short. */
tsr_axi_mem_t *tsr_axi_mem_create(const tsr_axi_mem_cfg_t *cfg);

/** Free the model. NULL is accepted. */
void tsr_axi_mem_destroy(tsr_axi_mem_t *m);

/** Bus reset: drop every transaction in flight and drive all outputs low.
 *  Memory contents, statistics and the PRNG state are kept. */
void tsr_axi_mem_reset(tsr_axi_mem_t *m);

/** One clock cycle. `req` holds the master outputs of this cycle; together
 *  with the model's current outputs they decide the handshakes. Returns the
 *  outputs for the next cycle (owned by the model, valid until the next call). */
const tsr_axi_rsp_t *tsr_axi_mem_tick(tsr_axi_mem_t *m, const tsr_axi_req_t *req);

/** Outputs the model drives in the current cycle. */
const tsr_axi_rsp_t *tsr_axi_mem_rsp(const tsr_axi_mem_t *m);

/** Backdoor copy into memory. 0, or -1 if [addr, addr+n) is out of range. */
int tsr_axi_mem_write(tsr_axi_mem_t *m, uint64_t addr, const void *src, size_t n);

/** Backdoor copy out of memory. 0, or -1 if [addr, addr+n) is out of range. */
int tsr_axi_mem_read(const tsr_axi_mem_t *m, uint64_t addr, void *dst, size_t n);

/** Traffic statistics; protocol_errors is the sum over all kinds. */
void tsr_axi_mem_stats(const tsr_axi_mem_t *m, tsr_axi_mem_stats_t *st);

/** Count bursts leaving [lo, hi] in the statistics (tsr_sim_set_guard in tb/tsr_sim.h). */
void tsr_axi_mem_set_guard(tsr_axi_mem_t *m, uint64_t lo, uint64_t hi);

/** Violations of one kind seen so far (0 for an unknown kind). */
uint64_t tsr_axi_mem_violations(const tsr_axi_mem_t *m, tsr_axi_viol_t kind);

/** Replace the injected bus faults (see tsr_axi_faults_t; NULL: none) and
 *  clear the fault log. Burst numbers count from this call. 0, or -1 (with a
 *  message) on a percentage above 100. */
int tsr_axi_mem_set_faults(tsr_axi_mem_t *m, const tsr_axi_faults_t *f);

/** Error responses sent since the last tsr_axi_mem_set_faults (or create). */
void tsr_axi_mem_fault_log(const tsr_axi_mem_t *m, tsr_axi_fault_log_t *log);

/** Cycles ticked since create. */
uint64_t tsr_axi_mem_cycle(const tsr_axi_mem_t *m);

#ifdef __cplusplus
}
#endif

#endif /* TSR_AXI_MEM_H */
