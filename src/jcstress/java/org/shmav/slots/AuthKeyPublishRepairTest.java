package org.shmav.slots;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.nio.ByteBuffer;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJJJ_Result;
import org.shmav.shm.SlotDescriptor;

/**
 * Auth-key publish by CAS racing a repair: writer w inserts key K (claim of the first FREE entry,
 * copy, CAS from its claim word to VALID) while another actor runs {@link AuthKeyTable#repair} of w,
 * as a recoverer that judged w dead would. A claim repaired before the publish must make the publish
 * fail (w then claims the next entry). Results: K's handle, entries repaired, VALID entries, state of
 * entry 0, generation of entry 0, 1 when K's handle looks up K.
 */
@JCStressTest
@Description("An auth-key claim freed by a repair is never published; a published key is never freed by it.")
@Outcome(id = "0, 0, 1, 2, 0, 1", expect = ACCEPTABLE,
    desc = "the repair ran before the claim or after the publish: K at entry 0")
@Outcome(id = "1, 1, 1, 0, 1, 1", expect = ACCEPTABLE,
    desc = "the repair freed w's claim of entry 0; w's publish failed and K went to entry 1")
@Outcome(id = "-28, 2, 0, 0, 1, 0", expect = ACCEPTABLE,
    desc = "the repair freed w's claim of entry 0 and then the claim of entry 1 that w moved on to: both " +
        "publishes failed, nothing published, w gets -ENOSPC (although both entries are FREE again)")
@Outcome(expect = FORBIDDEN,
    desc = "a repaired claim was published (entry 0 VALID although repaired), a published key freed, two VALID " +
        "entries, or K's handle does not hold K")
@State
public class AuthKeyPublishRepairTest
{
    static final int KEY_SIZE = 64;

    final Fixture av = new Fixture(1, KEY_SIZE, 2);
    final AuthKeyTable keys = av.region.authKeys();
    final ByteBuffer k = ByteBuffer.allocate(KEY_SIZE);
    final ByteBuffer dst = ByteBuffer.allocate(KEY_SIZE);
    final Writer w = av.w2;

    public AuthKeyPublishRepairTest()
    {
        for (int i = 0; i < KEY_SIZE; i++)
        {
            k.put(i, (byte)(i * 7 + 1));
        }
    }

    @Actor
    public void inserter(final JJJJJJ_Result r)
    {
        r.r1 = keys.insert(w, k);
    }

    @Actor
    public void repairer(final JJJJJJ_Result r)
    {
        r.r2 = AuthKeyTable.repair(av.region.memory(), av.region.layout(), w.index());
    }

    @Arbiter
    public void arbiter(final JJJJJJ_Result r)
    {
        r.r3 = (keys.isValid(0) ? 1 : 0) + (keys.isValid(1) ? 1 : 0);
        final long e0 = av.region.memory().getLongVolatile(av.region.layout().authKey(0));
        r.r4 = SlotDescriptor.state(e0);
        r.r5 = SlotDescriptor.generation(e0);
        r.r6 = keys.lookup(r.r1, dst) == KEY_SIZE && dst.equals(k) ? 1 : 0;
    }
}
