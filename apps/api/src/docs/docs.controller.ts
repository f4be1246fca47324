import { Controller, Get, Header, Param, Res } from "@nestjs/common";
import type { FastifyReply } from "fastify";
import { UndocumentedPublic } from "../common/endpoint.decorator.js";
import { DocsService } from "./docs.service.js";

/** The OpenAPI document and the interactive reference built on it; public, and not part of /v1. */
@Controller()
@UndocumentedPublic()
export class DocsController {
  constructor(private readonly docs: DocsService) {}

  @Get("doc-json")
  document(): Record<string, unknown> {
    return this.docs.openApiDocument();
  }

  @Get("doc")
  @Header("content-type", "text/html; charset=utf-8")
  // Its "Authorize" form takes an API key: no other site may frame it to catch one (clickjacking).
  @Header("content-security-policy", "frame-ancestors 'none'")
  @Header("x-frame-options", "DENY")
  page(): string {
    return this.docs.referencePage();
  }

  @Get("doc/assets/:name")
  async asset(@Param("name") name: string, @Res() reply: FastifyReply): Promise<void> {
    const { body, contentType } = await this.docs.asset(name);
    await reply
      .header("content-type", contentType)
      .header("cache-control", "public, max-age=86400")
      .send(body);
  }
}
