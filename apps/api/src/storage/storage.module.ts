import { type DynamicModule, Global, Module } from "@nestjs/common";
import type { AppConfig } from "../common/config.js";
import { IMAGE_STORAGE } from "./image-storage.js";
import { LocalFileStorage } from "./local-file.storage.js";
import { S3Storage } from "./s3.storage.js";

@Global()
@Module({})
export class StorageModule {
  static forConfig({ storage }: AppConfig): DynamicModule {
    const provider = {
      provide: IMAGE_STORAGE,
      useFactory: () =>
        storage.driver === "s3" ? new S3Storage(storage) : new LocalFileStorage(storage.dir),
    };
    return { module: StorageModule, providers: [provider], exports: [IMAGE_STORAGE] };
  }
}
