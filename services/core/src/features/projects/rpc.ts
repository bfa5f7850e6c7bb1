import type { ServiceImpl } from '@connectrpc/connect';
import type { ProjectCreateBody, ProjectUpdateBody } from '@cluster/contracts';
import { bodyOf, jsonBytes, jsonPage, pageArgs } from '@cluster/platform';
import type { ProjectService } from '@cluster/proto';
import type { createProjectService } from './service.ts';

/** ProjectService over Connect: unpacks requests, calls the rules, packs answers. */
export function projectRpc(projects: ReturnType<typeof createProjectService>): ServiceImpl<typeof ProjectService> {
  return {
    async listProjects(req) {
      return jsonPage(await projects.list(req.actor, bodyOf(req.query), pageArgs(req)));
    },
    async createProject(req) {
      return { resource: jsonBytes(await projects.create(req.actor, bodyOf<ProjectCreateBody>(req.body))), created: true };
    },
    async getProject(req) {
      return { resource: jsonBytes(await projects.get(req.actor, req.id)) };
    },
    async updateProject(req) {
      return { resource: jsonBytes(await projects.update(req.actor, req.id, bodyOf<ProjectUpdateBody>(req.body))) };
    },
    async deleteProject(req) {
      await projects.remove(req.actor, req.id);
      return {};
    },
  };
}
