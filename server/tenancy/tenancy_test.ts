import { assertEquals, assertRejects } from "../../tests/assert.ts";
import { FakeClock } from "../../core/clock.ts";
import { storeTest } from "../../tests/helpers/stores.ts";
import { AppError } from "../../core/errors.ts";
import { Tenancy } from "./tenancy.ts";

storeTest(
  "a team or project name is unique within its parent, for a rename as for a creation",
  async (store) => {
    {
      const t = await Tenancy.load({ store, clock: new FakeClock() });
      const org = await t.createOrg("Acme");
      const blue = await t.createTeam(org.id, "Blue");
      const red = await t.createTeam(org.id, "Red");
      const err = await assertRejects(() => t.renameTeam(red.id, "Blue"), AppError);
      assertEquals(err.code, "conflict");
      await assertRejects(
        () => t.createTeam(org.id, "Blue"),
        AppError,
        "exists in this organisation",
      );
      assertEquals(
        (await t.renameTeam(blue.id, "Blue")).name,
        "Blue",
        "keeping its own name is fine",
      );

      const a = await t.createProject(blue.id, "a");
      await t.createProject(blue.id, "b");
      await assertRejects(() => t.renameProject(a.id, "b"), AppError, "exists in this team");
      assertEquals((await t.createProject(red.id, "b")).name, "b", "another team may use it");
    }
  },
);
