package real.st4_groupload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.stringtemplate.v4.ST;
import org.stringtemplate.v4.STGroupFile;

/**
 * antlr/stringtemplate4 #194 (and #203), ST4 4.0.8: an STGroupFile loads its file lazily, on the
 * first template lookup. Two threads (two DAO calls of an application, in the report) ask a new
 * group for a template at the same time: the first marks the group loaded and parses the file,
 * the second sees it marked loaded, finds nothing yet and gets null ("No StringTemplate group
 * ... in multi-thread env"); its lookup also records the name as not found, so the first thread's
 * parse reports "redefinition of template" and the template stays missing.
 */
public class GroupFileLoadTest {

    static final String GROUP =
            "findAll(table) ::= \"select * from <table>\"\n"
            + "findById(table, id) ::= \"select * from <table> where id = <id>\"\n"
            + "countAll(table) ::= \"select count(*) from <table>\"\n";

    static final String[] NAMES = { "findAll", "findById" };
    static final String[] EXPECTED = { "select * from cars", "select * from cars where id = 7" };

    static final int ROUNDS = 1;

    static String render(STGroupFile group, int k) {
        ST st = group.getInstanceOf(NAMES[k]);
        if (st == null) {
            return null;
        }
        st.add("table", "cars");
        if (k == 1) {
            st.add("id", 7);
        }
        return st.render();
    }

    @Test
    public void concurrentFirstLookupsFindTheTemplates() throws Exception {
        Path dir = Files.createTempDirectory("st4-groupload");
        Path file = dir.resolve("queries.stg");
        Files.writeString(file, GROUP);

        // one group used by a single thread first: the parser's classes are loaded before the race
        STGroupFile warm = new STGroupFile(file.toString());
        assertEquals(EXPECTED[0], render(warm, 0));

        for (int round = 0; round < ROUNDS; round++) {
            STGroupFile group = new STGroupFile(file.toString());
            CountDownLatch start = new CountDownLatch(1);
            String[] seen = new String[NAMES.length];
            Throwable[] failed = new Throwable[NAMES.length];
            Thread[] callers = new Thread[NAMES.length];
            for (int i = 0; i < callers.length; i++) {
                int k = i;
                callers[i] = new Thread(() -> {
                    try {
                        start.await();
                        seen[k] = render(group, k);
                    } catch (Throwable t) {
                        failed[k] = t;
                    }
                }, "dao-" + i);
                callers[i].start();
            }
            start.countDown();
            for (Thread t : callers) {
                t.join();
            }
            for (int i = 0; i < callers.length; i++) {
                if (failed[i] != null) {
                    throw new AssertionError("round " + round + ": dao-" + i + " failed", failed[i]);
                }
                assertNotNull(seen[i], "round " + round + ": dao-" + i + " got no template " + NAMES[i]);
                assertEquals(EXPECTED[i], seen[i], "round " + round + ": dao-" + i + " rendered " + NAMES[i]);
            }
        }
    }
}
