package real.smile_recycler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;

/**
 * FasterXML/jackson-dataformats-binary #384, jackson-dataformat-smile 2.15.2: non-blocking Smile
 * parsers made on one thread (an event loop, in the report) and then fed on worker threads. Each
 * parser keeps the SmileBufferRecycler of the thread that made it, so the workers share one
 * recycler; its alloc is a read of the buffer field then a write of null, so two workers can take
 * the same seen-names buffer and resolve each other's back-referenced field names: the decoded
 * document differs from the one encoded (or the parser throws).
 */
public class ConcurrentAsyncParseTest {

    static final int WORKERS = 3;
    static final int PARSERS_PER_WORKER = 20;

    static final SmileFactory FACTORY = new SmileFactory();

    static final int OBJECTS = 3;
    static final int KEYS = 2;

    /** Worker w's messages: OBJECTS objects with the same KEYS field names (back-referenced). */
    static byte[] document(int w) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            for (int i = 0; i < OBJECTS; i++) {
                g.writeObjectFieldStart("elt_" + i);
                for (int j = 0; j < KEYS; j++) {
                    g.writeStringField("w" + w + "_key_" + j, "val" + i + j);
                }
                g.writeEndObject();
            }
            g.writeEndObject();
        }
        return out.toByteArray();
    }

    static List<String> expected(int w) {
        List<String> events = new ArrayList<>();
        for (int i = 0; i < OBJECTS; i++) {
            events.add("elt_" + i);
            for (int j = 0; j < KEYS; j++) {
                events.add("w" + w + "_key_" + j + "=val" + i + j);
            }
        }
        return events;
    }

    static List<String> decode(JsonParser parser, byte[] doc) throws Exception {
        List<String> events = new ArrayList<>();
        ByteArrayFeeder feeder = (ByteArrayFeeder) parser.getNonBlockingInputFeeder();
        try {
            feeder.feedInput(doc, 0, doc.length);
            feeder.endOfInput();
            String name = null;
            JsonToken t;
            while ((t = parser.nextToken()) != null && t != JsonToken.NOT_AVAILABLE) {
                if (t == JsonToken.FIELD_NAME) {
                    name = parser.currentName();
                } else if (t == JsonToken.VALUE_STRING) {
                    events.add(name + "=" + parser.getText());
                } else if (t == JsonToken.START_OBJECT && name != null) {
                    events.add(name);
                }
            }
        } finally {
            parser.close();
        }
        return events;
    }

    @Test
    public void parsersMadeOnOneThreadDecodeOnWorkers() throws Exception {
        byte[][] docs = new byte[WORKERS][];
        List<List<String>> expected = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            docs[w] = document(w);
            expected.add(expected(w));
        }

        // the parsers are made on a thread of their own (a fresh recycler in every run), as an
        // event loop would make them, and then handed to the workers
        List<List<JsonParser>> work = new ArrayList<>();
        Throwable[] made = new Throwable[1];
        Thread maker = new Thread(() -> {
            try {
                for (int w = 0; w < WORKERS; w++) {
                    List<JsonParser> parsers = new ArrayList<>();
                    for (int k = 0; k < PARSERS_PER_WORKER; k++) {
                        parsers.add(FACTORY.createNonBlockingByteArrayParser());
                    }
                    work.add(parsers);
                }
            } catch (Throwable t) {
                made[0] = t;
            }
        }, "event-loop");
        maker.start();
        maker.join();
        if (made[0] != null) {
            throw new AssertionError("making the parsers failed", made[0]);
        }

        CountDownLatch start = new CountDownLatch(1);
        String[] wrong = new String[WORKERS];
        Throwable[] failed = new Throwable[WORKERS];
        Thread[] workers = new Thread[WORKERS];
        for (int w = 0; w < WORKERS; w++) {
            int k = w;
            workers[w] = new Thread(() -> {
                try {
                    start.await();
                    for (JsonParser p : work.get(k)) {
                        List<String> got = decode(p, docs[k]);
                        if (!expected.get(k).equals(got)) {
                            wrong[k] = got.toString();
                            return;
                        }
                    }
                } catch (Throwable t) {
                    failed[k] = t;
                }
            }, "worker-" + w);
            workers[w].start();
        }
        start.countDown();
        for (Thread t : workers) {
            t.join();
        }
        for (int w = 0; w < WORKERS; w++) {
            if (failed[w] != null) {
                throw new AssertionError("worker-" + w + " failed to decode", failed[w]);
            }
            assertEquals(expected.get(w).toString(), wrong[w] == null ? expected.get(w).toString() : wrong[w],
                    "worker-" + w + " decoded another document");
        }
    }
}
