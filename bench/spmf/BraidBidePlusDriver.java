// Braid's driver for SPMF's BIDE+ (bench/mine-spmf-bench.mjs compiles it next to SPMF's own
// AlgoBIDEPlus, fetched separately; SPMF's code is not part of this repository).
// Usage: java -cp CLASSES BraidBidePlusDriver INPUT OUTPUT MINSUP_COUNT
import ca.pfv.spmf.algorithms.sequentialpatterns.prefixspan.AlgoBIDEPlus;

public class BraidBidePlusDriver {
  public static void main(String[] args) throws Exception {
    AlgoBIDEPlus algo = new AlgoBIDEPlus();
    long t0 = System.nanoTime();
    algo.runAlgorithm(args[0], args[1], Integer.parseInt(args[2]));
    System.err.println("spmf BIDE+: " + algo.patternCount + " closed patterns in " + (System.nanoTime() - t0) / 1000000 + " ms");
  }
}
