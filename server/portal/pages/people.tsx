/** People (administrators: everyone; tenant administrators: their part), add, suspend. */
import type { FC } from "hono/jsx";
import type { Role } from "../../tenancy/tenancy.ts";
import type { Org, Person, Team } from "../../tenancy/tenancy.ts";
import type { PortalCtx, Viewer } from "../context.ts";
import type { PortalKey } from "../i18n.ts";
import { CardForm } from "../card_form.tsx";
import { ColumnHeads, Layout, Notice } from "../layout.tsx";

export const roleKey: Record<Role, PortalKey> = {
  administrator: "role_administrator",
  operator: "role_operator",
  tenant_admin: "role_tenant_admin",
  member: "role_member",
  viewer: "role_viewer",
};

export interface PeopleData {
  people: Person[];
  orgs: Org[];
  /** Teams the viewer may add people to. */
  teams: Team[];
  grantable: Role[];
  canWrite: boolean;
  created?: { name: string; password?: string };
  notice?: { kind: "ok" | "error"; text: string };
}

export function placeName(ctx: PortalCtx, orgs: Org[], teams: Team[], p: Person): string {
  const org = orgs.find((o) => o.id === p.orgId)?.name;
  const team = teams.find((x) => x.id === p.teamId)?.name;
  if (!org) return ctx.words.t("staff_place");
  return team ? `${org} / ${team}` : org;
}

export const PeoplePage: FC<
  { ctx: PortalCtx; viewer: Viewer; data: PeopleData; allTeams: Team[] }
> = (
  { ctx, viewer, data, allTeams },
) => {
  const { t } = ctx.words;
  return (
    <Layout ctx={ctx} title={t("people_title")} path="/admin/people">
      {data.notice && <Notice kind={data.notice.kind}>{data.notice.text}</Notice>}
      {data.created && (
        <section class="card created" aria-live="polite">
          <p>{t("person_created", { name: data.created.name })}</p>
          {data.created.password && (
            <div class="copy-field">
              <label for="new-password">{t("person_password_once")}</label>
              <div class="row">
                <input id="new-password" value={data.created.password} readonly class="mono" />
                <button
                  type="button"
                  class="secondary"
                  data-copy="new-password"
                  data-copied={t("copied")}
                >
                  {t("copy")}
                </button>
              </div>
            </div>
          )}
        </section>
      )}
      <div class="scroll">
        <table>
          <ColumnHeads
            t={t}
            cols={[
              "col_user",
              "col_email",
              "col_role",
              "col_place",
              "col_person_state",
              data.canWrite && "col_actions",
            ]}
          />
          <tbody>
            {data.people.map((p) => (
              <tr>
                <th scope="row">{p.username}</th>
                <td>{p.email ?? ""}</td>
                <td>{t(roleKey[p.role])}</td>
                <td>{placeName(ctx, data.orgs, allTeams, p)}</td>
                <td>{t(p.state === "active" ? "person_active" : "person_suspended")}</td>
                {data.canWrite && (
                  <td>
                    {p.id !== viewer.person.id && data.grantable.includes(p.role) && (
                      <form method="post" action={`/admin/people/${p.id}/state`}>
                        <input type="hidden" name="_csrf" value={viewer.csrf} />
                        <input
                          type="hidden"
                          name="state"
                          value={p.state === "active" ? "suspended" : "active"}
                        />
                        <button
                          type="submit"
                          class="secondary"
                          aria-label={t("person_action_for", {
                            action: t(p.state === "active" ? "suspend" : "reinstate"),
                            name: p.username,
                          })}
                        >
                          {t(p.state === "active" ? "suspend" : "reinstate")}
                        </button>
                      </form>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {data.canWrite && (
        <CardForm
          id="new-person"
          title={t("person_new")}
          action="/admin/people"
          csrf={viewer.csrf}
        >
          <div>
            <label for="p-username">{t("field_username")}</label>
            <input id="p-username" name="username" required maxlength={100} />
          </div>
          <div>
            <label for="p-email">{t("field_email")}</label>
            <input id="p-email" name="email" type="email" />
          </div>
          <div>
            <label for="p-role">{t("field_role")}</label>
            <select id="p-role" name="role">
              {data.grantable.map((r) => (
                <option value={r} selected={r === "member"}>{t(roleKey[r])}</option>
              ))}
            </select>
          </div>
          <div>
            <label for="p-place">{t("field_team")}</label>
            <select id="p-place" name="place">
              {viewer.actor.role === "administrator" && (
                <option value="">{t("staff_place")}</option>
              )}
              {(viewer.actor.role === "administrator" || !viewer.actor.teamId) &&
                data.orgs.map((o) => <option value={`org:${o.id}`}>{o.name}</option>)}
              {data.teams.map((x) => (
                <option value={`team:${x.id}`}>
                  {`${data.orgs.find((o) => o.id === x.orgId)?.name ?? ""} / ${x.name}`}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="p-password">{t("field_person_password")}</label>
            <input
              id="p-password"
              name="password"
              type="password"
              minlength={12}
              autocomplete="new-password"
            />
          </div>
          <div class="end">
            <button type="submit">{t("person_create")}</button>
          </div>
        </CardForm>
      )}
      <script src="/static/copy.js" defer></script>
    </Layout>
  );
};
