import { type DynamicModule, Global, Module } from "@nestjs/common";
import type { AppConfig } from "../common/config.js";
import { IMAGE_STORAGE, type ImageStorage } from "./image-storage.js";
import { LocalFileStorage } from "./local-file.storage.js";
import { S3Storage } from "./s3.storage.js";

/** The folder or the bucket that the configuration names. */
export function openImageStorage(storage: AppConfig["storage"]): ImageStorage {
  return storage.driver === "s3" ? new S3Storage(storage) : new LocalFileStorage(storage);
}

/** Provides IMAGE_STORAGE everywhere: the folder or the bucket that the configuration names. */
@Global()
@Module({})
export class StorageModule {
  static forConfig({ storage }: AppConfig): DynamicModule {
    const provider = {
      provide: IMAGE_STORAGE,
      useFactory: (): ImageStorage => openImageStorage(storage),
    };
    return { module: StorageModule, providers: [provider], exports: [IMAGE_STORAGE] };
  }
}
