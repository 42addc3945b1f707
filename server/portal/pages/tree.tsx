/** Organisations, teams and projects the viewer may read, with create forms and limits. */
import type { FC } from "hono/jsx";
import type { Org, Project, Team } from "../../tenancy/tenancy.ts";
import type { PortalCtx, Viewer } from "../context.ts";
import { Layout, Notice } from "../layout.tsx";

export interface TreeData {
  orgs: Org[];
  teams: Team[];
  projects: Project[];
  mayCreateOrg: boolean;
  /** Orgs in which the viewer may make teams; teams in which they may make projects. */
  teamOrgs: Org[];
  projectTeams: Team[];
  notice?: { kind: "ok" | "error"; text: string };
}

const NewForm: FC<{
  viewer: Viewer;
  ctx: PortalCtx;
  action: string;
  id: string;
  title: string;
  parent?: { name: string; label: string; options: { id: string; name: string }[] };
}> = ({ viewer, ctx, action, id, title, parent }) => {
  const { t } = ctx.words;
  return (
    <form method="post" action={action} class="card grid" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`} class="full">{title}</h3>
      <input type="hidden" name="_csrf" value={viewer.csrf} />
      {parent && (
        <div>
          <label for={`${id}-parent`}>{parent.label}</label>
          <select id={`${id}-parent`} name={parent.name} required>
            {parent.options.map((o) => <option value={o.id}>{o.name}</option>)}
          </select>
        </div>
      )}
      <div>
        <label for={`${id}-name`}>{t("field_name")}</label>
        <input id={`${id}-name`} name="name" required maxlength={63} />
      </div>
      <div class="end">
        <button type="submit">{t("create")}</button>
      </div>
    </form>
  );
};

export const TreePage: FC<{ ctx: PortalCtx; viewer: Viewer; data: TreeData }> = (
  { ctx, viewer, data },
) => {
  const { t } = ctx.words;
  const limitsLink = (kind: string, id: string, name: string) => (
    <a
      href={`/admin/limits/${kind}/${id}`}
      class="small"
      aria-label={t("limits_for", { level: name })}
    >
      {t("limits_title")}
    </a>
  );
  return (
    <Layout ctx={ctx} title={t("tree_title")} path="/admin/tree">
      {data.notice && <Notice kind={data.notice.kind}>{data.notice.text}</Notice>}
      <ul class="tree">
        {data.orgs.map((o) => (
          <li>
            <strong>{o.name}</strong> {limitsLink("org", o.id, o.name)}
            <ul>
              {data.teams.filter((x) => x.orgId === o.id).map((x) => (
                <li>
                  {x.name} {limitsLink("team", x.id, x.name)}
                  <ul>
                    {data.projects.filter((p) => p.teamId === x.id).map((p) => (
                      <li>
                        {p.name} {limitsLink("project", p.id, p.name)}
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      <div class="two">
        {data.mayCreateOrg && (
          <NewForm
            viewer={viewer}
            ctx={ctx}
            action="/admin/orgs"
            id="new-org"
            title={t("org_new")}
          />
        )}
        {data.teamOrgs.length > 0 && (
          <NewForm
            viewer={viewer}
            ctx={ctx}
            action="/admin/teams"
            id="new-team"
            title={t("team_new")}
            parent={{ name: "org_id", label: t("field_org"), options: data.teamOrgs }}
          />
        )}
        {data.projectTeams.length > 0 && (
          <NewForm
            viewer={viewer}
            ctx={ctx}
            action="/admin/projects"
            id="new-project"
            title={t("project_new")}
            parent={{ name: "team_id", label: t("field_team"), options: data.projectTeams }}
          />
        )}
      </div>
    </Layout>
  );
};
